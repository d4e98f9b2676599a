"""Languages held for a video's recognition, over real Redis: released when it completes, failed with it
(callbacks sent), settled by housekeeping when its worker could not, charged with a ``video_url``'s probe.

The task store, quota ledger and webhook scheduler are the worker's own (``WorkerServices``) on the test Redis.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from redis.asyncio import Redis

from core import keys
from core.settings import AppArgs
from core.specs.added_language import AddLanguageRequest, added_language_spec
from core.specs.translation_of import TranslationOf
from core.specs.video import UploadSource, UrlSource, VideoJobSpec
from core.tasks import JobQueue, TaskState
from pipelines.added_targets import charge_targets, fail_targets, release_targets, settle_waiting
from pipelines.services import WorkerServices


@pytest.fixture
def services(redis_client: Redis, redis_url: str, tmp_path: Path) -> WorkerServices:
    args = AppArgs.model_validate(
        {
            "redis_url": redis_url,
            "worker": {"work_dir": str(tmp_path / "work")},
            "storage": {"root_dir": str(tmp_path / "files"), "secret": "s" * 32},
            "url_policy": {"allowed_hosts": ["hooks.example.com"]},
        }
    )
    return WorkerServices.create(args, {}, redis=redis_client)


async def family(
    services: WorkerServices, langs: tuple[str, ...] = ("fr", "de"), account: str = "acct", **options: object
) -> tuple[VideoJobSpec, list[str]]:
    """A submission's task (created, with its dependents) and its held languages, as the edge creates them."""
    parent_id = uuid.uuid4().hex
    source = options.pop("source", UploadSource(key="u/talk.mp4", filename="talk.mp4", size=10))
    spec = VideoJobSpec(target_lang="es", source_lang="en", source=source, **options)  # type: ignore[arg-type]
    origin = TranslationOf(parent_task_id=parent_id, root_task_id=parent_id)
    ids = []
    for lang in langs:
        child = added_language_spec(spec, AddLanguageRequest(target_lang=lang), lang, None, origin)
        child = child.model_copy(update={"callback_url": spec.callback_url})
        ids.append((await services.tasks.create(account, child.stored(), held=True)).task_id)
    parent = spec.model_copy(update={"dependents": ids})
    await services.tasks.create(account, parent.stored(), task_id=parent_id)
    return parent, ids


async def test_release_gives_each_held_language_its_job(services: WorkerServices) -> None:
    queue = JobQueue(services.redis)
    await queue.ensure_group()
    parent, ids = await family(services)
    first = await queue.claim("w", block_ms=50)  # the submission's own job
    assert first is not None and first.task_id not in ids
    await release_targets(services, parent)
    released = {job.task_id for job in [await queue.claim("w", block_ms=50), await queue.claim("w", block_ms=50)] if job}
    assert released == set(ids) and await services.tasks.held_ids() == []
    await release_targets(services, parent)  # twice: nothing more
    assert await queue.claim("w", block_ms=50) is None


async def test_a_failed_recognition_fails_its_languages_and_sends_their_callbacks(services: WorkerServices) -> None:
    account = await services.accounts.create("acct")
    _parent, ids = await family(services, account=account.id, callback_url="https://hooks.example.com/mt")
    no_audio = {"code": "NO_AUDIO_TRACK", "message": "The video has no audio track."}
    parent_task = await services.tasks.settle(await _parent_id(services, ids[0]), TaskState.FAILED, error=no_audio)
    await fail_targets(services, parent_task)
    for task_id in ids:
        child = await services.tasks.get(task_id)
        assert child is not None and child.status is TaskState.FAILED and child.error is not None
        assert child.error["code"] == "NO_AUDIO_TRACK" and "no audio track" in child.error["message"]
    assert await services.tasks.held_ids() == []
    assert await services.redis.zcard(keys.webhook_due()) == len(ids)  # one callback each


async def test_housekeeping_releases_after_a_completed_parent_and_fails_after_a_failed_or_gone_one(
    services: WorkerServices,
) -> None:
    queue = JobQueue(services.redis)
    await queue.ensure_group()
    _done, done_ids = await family(services, ("fr",))
    _failed, failed_ids = await family(services, ("de",))
    _gone, gone_ids = await family(services, ("it",))
    _waiting, waiting_ids = await family(services, ("pt",))
    await services.tasks.transition(await _parent_id(services, done_ids[0]), TaskState.PROCESSING)
    await services.tasks.settle(await _parent_id(services, done_ids[0]), TaskState.COMPLETED, result={})
    await services.tasks.settle(
        await _parent_id(services, failed_ids[0]), TaskState.FAILED, error={"code": "UNSUPPORTED_VIDEO", "message": "Bad."}
    )
    await services.redis.delete(keys.task(await _parent_id(services, gone_ids[0])))
    await settle_waiting(services)
    assert (await services.tasks.get(done_ids[0])).job_id is not None  # type: ignore[union-attr]
    assert (await services.tasks.get(failed_ids[0])).error["code"] == "UNSUPPORTED_VIDEO"  # type: ignore[index,union-attr]
    assert (await services.tasks.get(gone_ids[0])).status is TaskState.FAILED  # type: ignore[union-attr]
    assert await services.tasks.held_ids() == waiting_ids  # its parent still runs


async def test_a_video_urls_languages_are_charged_at_its_probe_once_and_one_over_quota_fails_alone(
    services: WorkerServices,
) -> None:
    account = await services.accounts.create("acct", quotas={"dubbing_seconds": 150})
    parent, ids = await family(
        services, ("fr", "de"), account.id, source=UrlSource(url="https://media.example.com/v.mp4"), enable_dubbing=True
    )
    await charge_targets(services, account, parent, 100.0)
    await charge_targets(services, account, parent, 100.0)  # a rerun of the probe charges nothing again
    used = (await services.quotas.usage(account)).get("dubbing_seconds")
    assert used == 100  # the first language's; the second did not fit
    second = await services.tasks.get(ids[1])
    assert second is not None and second.status is TaskState.FAILED and second.error["code"] == "QUOTA_EXCEEDED"  # type: ignore[index]
    first = await services.tasks.get(ids[0])
    assert first is not None and first.status is TaskState.QUEUED


async def _parent_id(services: WorkerServices, child_id: str) -> str:
    child = await services.tasks.get(child_id)
    assert child is not None
    return str(child.params["translation_of"]["parent_task_id"])
