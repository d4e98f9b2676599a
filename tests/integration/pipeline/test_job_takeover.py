"""The job runner over real Redis: takeover of a dead worker's job, poison jobs, retries, durable endings."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from redis.asyncio import Redis

from core.accounts import AccountStore
from core.settings import AppArgs
from core.tasks import TaskState
from pipelines.job_runner import JobRunner
from pipelines.outcome import Done, Failed, RetryLater
from pipelines.services import WorkerServices
from pipelines.video_job import VideoJobHandler
from tests.integration.pipeline.conftest import local_deps, spec_for
from tests.support.media import make_video

pytestmark = pytest.mark.models


@pytest.fixture
async def services(redis_client: Redis, redis_url: str, tmp_path: Path) -> WorkerServices:
    args = AppArgs.model_validate(
        {
            "redis_url": redis_url,
            "worker": {"work_dir": str(tmp_path / "work"), "reclaim_after_s": 0.5, "heartbeat_s": 0.2, "max_deliveries": 2},
            "storage": {"root_dir": str(tmp_path / "files"), "secret": "s" * 32},
        }
    )
    svc = WorkerServices.create(args, {})
    await svc.jobs.ensure_group()
    return svc


def local_runner(services: WorkerServices, consumer: str, whisper, translator, store) -> JobRunner:
    handler = VideoJobHandler(deps_factory=lambda s, t, spec: local_deps(whisper, translator, store))
    return JobRunner(services, consumer, {"video": handler})


async def test_dead_workers_job_is_completed_by_another(services, whisper, translator, store, tmp_path) -> None:
    account = await AccountStore(services.redis).create("takeover")
    video = make_video(tmp_path / "v.mp4", container="mp4", speech_text="Good evening and welcome home.")
    task = await services.tasks.create(account.id, spec_for(video, target_lang="es", source_lang="en").stored())

    dead = await services.jobs.claim("worker-dead", block_ms=100)
    assert dead is not None and dead.task_id == task.task_id
    await services.tasks.transition(task.task_id, TaskState.PROCESSING, stage="recognizing", progress=30)
    # worker-dead stops here: no heartbeat, no ack.

    runner = local_runner(services, "worker-alive", whisper, translator, store)
    assert await services.jobs.claim("worker-alive", block_ms=50) is None  # not idle long enough yet
    await asyncio.sleep(0.7)
    job = await services.jobs.claim("worker-alive", block_ms=50)
    assert job is not None and job.task_id == task.task_id and job.deliveries == 2
    assert isinstance(await runner.process(job), Done)

    done = await services.tasks.get(task.task_id)
    assert done is not None and done.status is TaskState.COMPLETED and done.worker == "worker-alive"
    assert done.result and done.result["subtitle_url"] and done.progress == 100
    await asyncio.sleep(0.7)
    assert await services.jobs.claim("worker-other", block_ms=50) is None  # acknowledged: nothing left


async def test_job_redelivered_too_often_fails_the_task(services) -> None:
    account = await AccountStore(services.redis).create("poison")
    task = await services.tasks.create(account.id, spec_for(Path("/nonexistent"), target_lang="es").stored())
    for consumer in ("w1", "w2"):
        assert await services.jobs.claim(consumer, block_ms=50) is not None
        await asyncio.sleep(0.6)
    job = await services.jobs.claim("w3", block_ms=50)
    assert job is not None and job.deliveries == 3
    outcome = await JobRunner(services, "w3", {"video": VideoJobHandler()}).process(job)
    assert isinstance(outcome, Failed)
    failed = await services.tasks.get(task.task_id)
    assert failed is not None and failed.status is TaskState.FAILED and failed.error["code"] == "INTERNAL_ERROR"
    assert await services.jobs.depth() == 0


async def test_busy_engine_sends_the_task_back_to_the_queue(services) -> None:
    """Without ASR/Translator handles the engines are unavailable: retried later, never failed."""
    account = await AccountStore(services.redis).create("busy")
    task = await services.tasks.create(account.id, spec_for(Path("/x.mp4"), target_lang="es").stored())
    job = await services.jobs.claim("w1", block_ms=50)
    assert job is not None
    assert isinstance(await JobRunner(services, "w1", {"video": VideoJobHandler()}).process(job), RetryLater)
    queued = await services.tasks.get(task.task_id)
    assert queued is not None and queued.status is TaskState.QUEUED
    await asyncio.sleep(0.6)
    again = await services.jobs.claim("w2", block_ms=50)
    assert again is not None and again.task_id == task.task_id and again.deliveries == 2  # still pending, redelivered
