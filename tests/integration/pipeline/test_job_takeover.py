"""A job whose worker died is taken over and completed; poison jobs end as failed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from redis.asyncio import Redis

from pipelines.runner import JobProcessor
from serve_app.accounts import AccountStore
from serve_app.settings import AppArgs
from serve_app.tasks import TaskState
from serve_app.worker_services import WorkerServices
from tests.integration.pipeline.conftest import local_deps
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


async def test_dead_workers_job_is_completed_by_another(services, whisper, translator, store, tmp_path) -> None:
    account = await AccountStore(services.redis).create("takeover")
    video = make_video(tmp_path / "v.mp4", container="mp4", speech_text="Good evening and welcome home.")
    params = {"target_lang": "es", "source_lang": "en", "output_format": "srt", "source": {"kind": "upload", "path": str(video)}}
    task = await services.tasks.create(account.id, params)
    await services.jobs.enqueue(task.task_id)

    dead = await services.jobs.claim("worker-dead", block_ms=100)
    assert dead is not None and dead.task_id == task.task_id
    await services.tasks.transition(task.task_id, TaskState.PROCESSING, stage="recognizing", progress=30)
    # worker-dead stops here: no heartbeat, no ack.

    processor = JobProcessor(services, "worker-alive", deps_factory=lambda s, t: local_deps(whisper, translator, store))
    assert await services.jobs.claim("worker-alive", block_ms=50) is None  # not idle long enough yet
    await asyncio.sleep(0.7)
    job = await services.jobs.claim("worker-alive", block_ms=50)
    assert job is not None and job.task_id == task.task_id and job.deliveries == 2
    await processor.process(job)

    done = await services.tasks.get(task.task_id)
    assert done is not None and done.status is TaskState.COMPLETED and done.worker == "worker-alive"
    assert done.result and done.result["subtitle_url"] and done.progress == 100
    await asyncio.sleep(0.7)
    assert await services.jobs.claim("worker-other", block_ms=50) is None  # acknowledged: nothing left


async def test_job_redelivered_too_often_fails_the_task(services) -> None:
    account = await AccountStore(services.redis).create("poison")
    task = await services.tasks.create(account.id, {"target_lang": "es", "source": {"kind": "upload", "path": "/nonexistent"}})
    await services.jobs.enqueue(task.task_id)
    for consumer in ("w1", "w2"):
        assert await services.jobs.claim(consumer, block_ms=50) is not None
        await asyncio.sleep(0.6)
    job = await services.jobs.claim("w3", block_ms=50)
    assert job is not None and job.deliveries == 3
    await JobProcessor(services, "w3").process(job)
    failed = await services.tasks.get(task.task_id)
    assert failed is not None and failed.status is TaskState.FAILED and failed.error["code"] == "INTERNAL_ERROR"
