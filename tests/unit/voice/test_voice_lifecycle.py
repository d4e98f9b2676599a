"""Voice lifecycle over real Redis: a training ends once, failures refund, housekeeping ends stranded voices.

The stores, quota ledger, task store and webhook scheduler are the worker's own
(``WorkerServices``) on the test Redis; the only stand-in is a VoiceCloner
handle whose fit fails, to drive the handler's failure path.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile
from redis.asyncio import Redis

from core import keys
from core.accounts import Account
from core.settings import AppArgs
from core.specs.voice import SampleFacts, VoiceJobSpec
from core.tasks import Job, Task, TaskState
from core.voices import FAILED, PROCESSING, READY, Voice, VoiceSlotsFull, VoiceStore
from core.webhooks.payloads import payload_for
from engines.errors import EngineFailure
from pipelines.job_runner import JobContext, JobRunner
from pipelines.outcome import Done, Failed
from pipelines.services import WorkerServices
from pipelines.voice_job import VoiceJobHandler
from pipelines.voice_lifecycle import EXPIRED_MESSAGE, NEVER_QUEUED_MESSAGE, STRANDED_GRACE_S, end_stranded_voices

HOUR = 3600.0


@pytest.fixture
def services(redis_client: Redis, redis_url: str, tmp_path: Path) -> WorkerServices:
    args = AppArgs.model_validate(
        {
            "redis_url": redis_url,
            "worker": {"work_dir": str(tmp_path / "work")},
            "storage": {"root_dir": str(tmp_path / "files"), "secret": "s" * 32},
            "url_policy": {"allowed_hosts": ["localhost"]},
        }
    )
    return WorkerServices.create(args, {}, redis=redis_client)


async def charged_account(services: WorkerServices, slots: int = 3) -> Account:
    """An account that has paid for one clone (as the ingress charges before it queues a training)."""
    account = await services.accounts.create("acct-" + uuid.uuid4().hex[:8], voice_slots=slots, quotas={"voice_clones": 5})
    await services.quotas.consume(account, "voice_clones", 1)
    return account


async def processing_voice(services: WorkerServices, account: Account, *, age_s: float = 0.0, name: str = "v") -> Voice:
    voice = Voice(VoiceStore.new_id(), account.id, name, "en", PROCESSING, time.time() - age_s)
    return await VoiceStore(services.redis).create(voice, account.voice_slots)


async def voice_task(services: WorkerServices, voice: Voice, *, age_s: float = 0.0, callback: str | None = None) -> Task:
    facts = SampleFacts(duration_s=12.0, speech_s=11.0, snr_db=30.0, gender="male", gender_confidence=0.9, denoised=True)
    spec = VoiceJobSpec(
        voice_id=voice.voice_id, voice_name=voice.voice_name, lang="en", gender="male", sample_key="none",
        sample_meta=facts, created_at=voice.created_at, callback_url=callback,
    )  # fmt: skip
    task = await services.tasks.create(voice.account_id, spec.stored(), kind="voice")
    if age_s:
        await services.redis.hset(keys.task(task.task_id), "created_at", json.dumps(time.time() - age_s))
    await VoiceStore(services.redis).update(voice, task_id=task.task_id)
    return task


async def clones_used(services: WorkerServices, account: Account) -> int:
    return (await services.quotas.usage(account))["voice_clones"]


# --------------------------------------------------------------------- the store


async def test_a_training_ends_once(services: WorkerServices) -> None:
    store = VoiceStore(services.redis)
    account = await charged_account(services, slots=1)
    voice = await processing_voice(services, account)
    assert await store.processing_before(time.time() + 1) == [voice.voice_id]
    failed = await store.finish(voice, FAILED, error={"code": "3003", "message": "stranded"})
    assert failed is not None and failed.status == FAILED
    assert await store.finish(voice, READY, quality_score=0.9) is None  # a late worker changes nothing
    stored = await store.get(voice.voice_id)
    assert stored is not None and stored.status == FAILED and stored.quality_score is None
    assert await store.slots_used(account.id) == 0 and await store.processing_before(time.time() + 1) == []
    await store.create(Voice(VoiceStore.new_id(), account.id, "w", "en", READY, time.time()), 1)  # the slot is free
    with pytest.raises(VoiceSlotsFull):
        await store.create(Voice(VoiceStore.new_id(), account.id, "x", "en", READY, time.time()), 1)


async def test_deleting_a_processing_voice_leaves_no_trace_in_the_index(services: WorkerServices) -> None:
    store = VoiceStore(services.redis)
    account = await charged_account(services)
    voice = await processing_voice(services, account)
    ready = await store.create(Voice(VoiceStore.new_id(), account.id, "r", "en", READY, time.time()), 3)
    assert await store.processing_before(time.time() + 1) == [voice.voice_id]  # a ready voice is never indexed
    assert await store.delete(voice) and await store.delete(ready)
    assert await store.processing_before(time.time() + 1) == []
    with pytest.raises(KeyError):
        await store.finish(voice, FAILED, error={"code": "3003", "message": "gone"})


# --------------------------------------------------------------------- housekeeping


async def test_an_expired_training_fails_its_voice_frees_the_slot_refunds_and_calls_back(services: WorkerServices) -> None:
    account = await charged_account(services, slots=1)
    voice = await processing_voice(services, account, age_s=49 * HOUR)
    task = await voice_task(services, voice, age_s=49 * HOUR, callback="http://localhost:9/hook")
    assert await clones_used(services, account) == 1

    assert await end_stranded_voices(services) == [voice.voice_id]

    failed = await VoiceStore(services.redis).get(voice.voice_id)
    assert failed is not None and failed.status == FAILED and failed.completed_at is not None
    assert failed.error == {"code": "3003", "message": EXPIRED_MESSAGE}
    assert await VoiceStore(services.redis).slots_used(account.id) == 0
    assert await clones_used(services, account) == 0
    expired = await services.tasks.get(task.task_id)
    assert expired is not None and expired.status is TaskState.EXPIRED
    assert await services.redis.exists(keys.webhook_delivery(task.task_id))  # the callback is on its way
    body = payload_for(expired)
    assert body["status"] == "failed" and body["error"]["code"] == "3003" and body["voice_id"] == voice.voice_id
    assert await end_stranded_voices(services) == []  # once: no second refund
    assert await clones_used(services, account) == 0


async def test_a_voice_without_a_task_fails_after_the_grace_period(services: WorkerServices) -> None:
    account = await charged_account(services, slots=2)
    await services.quotas.consume(account, "voice_clones", 1)
    orphan = await processing_voice(services, account, age_s=STRANDED_GRACE_S + 60, name="orphan")
    young = await processing_voice(services, account, age_s=5, name="young")  # its ingress may still be queuing it

    assert await end_stranded_voices(services) == [orphan.voice_id]

    store = VoiceStore(services.redis)
    ended, waiting = await store.get(orphan.voice_id), await store.get(young.voice_id)
    assert ended is not None and ended.status == FAILED and ended.error == {"code": "3003", "message": NEVER_QUEUED_MESSAGE}
    assert waiting is not None and waiting.status == PROCESSING
    assert await store.slots_used(account.id) == 1 and await clones_used(services, account) == 1
    assert await end_stranded_voices(services, now=time.time() + STRANDED_GRACE_S) == [young.voice_id]


async def test_a_live_training_is_left_alone(services: WorkerServices) -> None:
    account = await charged_account(services)
    voice = await processing_voice(services, account, age_s=2 * HOUR)
    await voice_task(services, voice, age_s=2 * HOUR)
    assert await end_stranded_voices(services) == []
    stored = await VoiceStore(services.redis).get(voice.voice_id)
    assert stored is not None and stored.status == PROCESSING and await clones_used(services, account) == 1


# --------------------------------------------------------------------- the job handler


class FailingCloner:
    """A VoiceCloner handle whose training fails the way a real one reports it (an exception from ``fit``)."""

    class _Fit:
        async def remote(self, *args: Any) -> Any:
            raise EngineFailure("no blend converged")

    fit = _Fit()


def context(services: WorkerServices, tmp_path: Path) -> JobContext:
    async def report(stage: str, percent: int, remaining_s: int) -> None:
        return None

    return JobContext(services, tmp_path, report)


async def test_a_failed_training_is_refunded_like_a_failed_sync_clone(services: WorkerServices, tmp_path: Path) -> None:
    account = await charged_account(services)
    voice = await processing_voice(services, account)
    task = await voice_task(services, voice)
    speech = tmp_path / "speech.wav"
    soundfile.write(speech, np.zeros(16_000 * 12, dtype=np.float32), 16_000, subtype="PCM_16")
    stored = await services.files.put(voice.voice_id, "speech.wav", speech, "audio/wav")
    task.params["sample_key"] = stored.key
    services.handles = {"voice_cloner": FailingCloner()}

    outcome = await VoiceJobHandler().run(task, context(services, tmp_path))

    assert isinstance(outcome, Failed) and outcome.error["code"] == "3003" and "no blend converged" in outcome.error["message"]
    failed = await VoiceStore(services.redis).get(voice.voice_id)
    assert failed is not None and failed.status == FAILED
    assert await clones_used(services, account) == 0


async def test_an_interrupted_training_fails_its_voice_and_refunds_once(services: WorkerServices, tmp_path: Path) -> None:
    account = await charged_account(services)
    voice = await processing_voice(services, account)
    task = await voice_task(services, voice)
    runner = JobRunner(services, "w1", {"voice": VoiceJobHandler()})
    job = Job(message_id="0-1", task_id=task.task_id, deliveries=services.args.worker.max_deliveries + 1)
    assert isinstance(await runner.process(job), Failed)
    failed = await VoiceStore(services.redis).get(voice.voice_id)
    assert failed is not None and failed.status == FAILED and failed.error and failed.error["code"] == "3003"
    assert await clones_used(services, account) == 0
    await VoiceJobHandler().on_failed(task, services)  # a repeated hook refunds nothing more
    assert await clones_used(services, account) == 0


async def test_a_run_for_a_voice_that_already_ended_trains_nothing(services: WorkerServices, tmp_path: Path) -> None:
    account = await charged_account(services)
    voice = await processing_voice(services, account, age_s=STRANDED_GRACE_S + 60)
    await end_stranded_voices(services)  # no task yet: failed by housekeeping
    task = await voice_task(services, voice)  # the ingress's task turns up late
    outcome = await VoiceJobHandler().run(task, context(services, tmp_path))  # no cloner handle: it would raise
    assert outcome == Failed({"code": "3003", "message": NEVER_QUEUED_MESSAGE})
    store = VoiceStore(services.redis)
    ready = await processing_voice(services, account, name="ready")
    done = await store.finish(ready, READY, quality_score=0.8, engine="kokoro-fit")
    assert done is not None
    rerun = await voice_task(services, ready)
    assert await VoiceJobHandler().run(rerun, context(services, tmp_path)) == Done(done.public())
