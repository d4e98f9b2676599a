"""Voice records in real Redis: unique names, quota slots, renames, deletion and the listing cursor, under concurrency."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from redis.asyncio import Redis

from core.specs.voice import SampleFacts, VoiceJobSpec
from core.tasks import Task, TaskState
from core.voices import FAILED, PROCESSING, READY, Voice, VoiceNameTaken, VoiceSlotsFull, VoiceStore, fold_name
from core.webhooks.payloads import payload_for


def voice(account: str, name: str, *, status: str = READY, lang: str = "en", created: float | None = None) -> Voice:
    return Voice(VoiceStore.new_id(), account, name, lang, status, created if created is not None else time.time())


@pytest.fixture
def account() -> str:
    return "acct_" + uuid.uuid4().hex[:12]


async def test_concurrent_creates_never_overfill_the_slots(redis_client: Redis, account: str) -> None:
    store = VoiceStore(redis_client)
    results = await asyncio.gather(*(store.create(voice(account, f"v{i}"), slots=3) for i in range(10)), return_exceptions=True)
    made = [r for r in results if isinstance(r, Voice)]
    assert len(made) == 3 and all(isinstance(r, VoiceSlotsFull) for r in results if not isinstance(r, Voice))
    assert await store.slots_used(account) == 3


async def test_concurrent_creates_share_no_name(redis_client: Redis, account: str) -> None:
    store = VoiceStore(redis_client)
    names = ["Alice", "alice", " ALICE ", "Ａｌｉｃｅ"]  # case, spaces and width fold to one name
    results = await asyncio.gather(*(store.create(voice(account, n), slots=10) for n in names), return_exceptions=True)
    assert sum(isinstance(r, Voice) for r in results) == 1
    assert sum(isinstance(r, VoiceNameTaken) for r in results) == 3
    assert len({fold_name(n) for n in names}) == 1


async def test_failed_and_deleted_voices_release_their_slot(redis_client: Redis, account: str) -> None:
    store = VoiceStore(redis_client)
    a = await store.create(voice(account, "a", status=PROCESSING), slots=2)
    b = await store.create(voice(account, "b"), slots=2)
    with pytest.raises(VoiceSlotsFull):
        await store.create(voice(account, "c"), slots=2)
    failed = await store.finish(a, FAILED, error={"code": "3003", "message": "no"})
    assert failed.status == FAILED and (await store.get(a.voice_id)).status == FAILED  # type: ignore[union-attr]
    assert await store.slots_used(account) == 1
    await store.create(voice(account, "c"), slots=2)
    assert await store.delete(b) and not await store.delete(b)
    assert await store.get(b.voice_id) is None
    assert await store.slots_used(account) == 1
    await store.create(voice(account, "b"), slots=2)  # the deleted voice's name is free again


async def test_rename_keeps_names_unique_and_survives_nothing_after_delete(redis_client: Redis, account: str) -> None:
    store = VoiceStore(redis_client)
    a = await store.create(voice(account, "a"), slots=10)
    b = await store.create(voice(account, "b"), slots=10)
    with pytest.raises(VoiceNameTaken):
        await store.rename(b, "A", None)
    renamed = await store.rename(a, "z", "desc")
    assert (renamed.voice_name, renamed.description) == ("z", "desc")
    await store.create(voice(account, "a"), slots=10)  # the old name was released
    await store.delete(renamed)
    with pytest.raises(KeyError):
        await store.rename(renamed, "y", None)
    with pytest.raises(KeyError):
        await store.update(renamed, status=FAILED)
    assert await store.get(renamed.voice_id) is None  # an update never resurrects a deleted voice


async def test_cursor_pages_cover_every_voice_once_despite_changes(redis_client: Redis, account: str) -> None:
    store = VoiceStore(redis_client)
    made = [await store.create(voice(account, f"v{i}", created=1000.0 + i // 2, lang="es" if i % 3 else "en"), slots=50)
            for i in range(11)]  # fmt: skip
    first = await store.page(account, limit=4)
    assert first.total == 11 and len(first.voices) == 4 and first.next_cursor
    await store.delete(first.voices[-1])  # deleting the voice the cursor names does not lose the next ones
    seen = [v.voice_id for v in first.voices]
    cursor = first.next_cursor
    while cursor:
        page = await store.page(account, limit=4, cursor=cursor)
        seen += [v.voice_id for v in page.voices]
        cursor = page.next_cursor
    assert seen == [v.voice_id for v in sorted(made, key=lambda v: (v.created_at, v.voice_id))]
    spanish = await store.page(account, lang="es", limit=50)
    assert spanish.total == sum(v.lang == "es" for v in made) - (first.voices[-1].lang == "es")
    with pytest.raises(ValueError):
        await store.page(account, cursor="not-a-cursor")


def test_voice_callback_bodies() -> None:
    facts = SampleFacts(duration_s=20.0, speech_s=18.0, snr_db=30.0, gender="male", gender_confidence=0.9, denoised=True)
    spec = VoiceJobSpec(
        voice_id="voice_x", voice_name="N", lang="en", gender="male", sample_key="k", sample_meta=facts, created_at=1000.0
    )
    params = spec.stored()
    ready = {"voice_id": "voice_x", "voice_name": "N", "lang": "en", "status": "ready", "quality_score": 0.8}
    done = Task("t", "a", TaskState.COMPLETED, 1000.0, params, kind="voice", result=ready, completed_at=1010.0)
    assert payload_for(done) == ready
    failed = Task("t", "a", TaskState.FAILED, 1000.0, params, kind="voice", error={"code": "3003", "message": "m"},
                  completed_at=1010.0)  # fmt: skip
    body = payload_for(failed)
    assert body["status"] == "failed" and body["error"] == {"code": "3003", "message": "m"}
    assert body["voice_id"] == "voice_x" and body["sample_duration"] == 20.0 and body["completed_at"].endswith("Z")
