"""The worker replica's loops over real Redis: callbacks independent of the job backlog, health, housekeeping.

The job handler here is a stand-in that only takes time: these tests are about
the runner's scheduling, not the pipeline (which has its own tests).
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from core import keys
from core.accounts import AccountStore
from core.errors import ErrorGroup
from core.redis import connect
from core.settings import AppArgs
from core.tasks import Task, TaskState
from pipelines.job_runner import JobContext
from pipelines.outcome import Done, Outcome
from pipelines.services import WorkerServices
from pipelines.worker import WorkerLoops
from tests.support.http_server import loopback_server
from tests.support.services import redis_server


class TakesTime:
    """A handler that works for ``seconds`` and completes."""

    error_group = ErrorGroup.VIDEO
    first_stage = "validating"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ran: list[str] = []

    async def run(self, task: Task, ctx: JobContext) -> Outcome:
        await ctx.report("recognizing", 50, 1)
        await asyncio.sleep(self.seconds)
        self.ran.append(task.task_id)
        return Done({"duration": self.seconds})


def worker_args(redis_url: str, tmp_path: Path, **worker: Any) -> AppArgs:
    return AppArgs.model_validate(
        {
            "redis_url": redis_url,
            "worker": {"work_dir": str(tmp_path / "work"), "heartbeat_s": 0.5, **worker},
            "storage": {"root_dir": str(tmp_path / "files"), "secret": "s" * 32},
            "url_policy": {"allowed_hosts": ["localhost"]},
            "webhooks": {"timeout_s": 2, "base_delay_s": 0.5, "max_delay_s": 2},
        }
    )


@pytest.fixture
async def loops_for(redis_client: Redis, redis_url: str, tmp_path: Path):
    started: list[WorkerLoops] = []

    def make(handler: TakesTime, **worker: Any) -> WorkerLoops:
        services = WorkerServices.create(worker_args(redis_url, tmp_path, **worker), {})
        loops = WorkerLoops(services, {"video": handler})
        started.append(loops)
        return loops

    yield make
    for loops in started:
        await loops.stop()


async def wait_for(predicate: Any, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if await predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not reached within {timeout_s} s")


async def test_a_callback_leaves_within_2_s_with_5_jobs_queued_behind(loops_for, redis_client: Redis, tmp_path: Path) -> None:
    account = await AccountStore(redis_client).create("hooks")
    loops = loops_for(TakesTime(1.5), max_concurrent_jobs=1)
    with loopback_server(tmp_path) as receiver:
        tasks = [await loops.services.tasks.create(account.id, {"callback_url": receiver.url(f"/hook/{i}")}) for i in range(6)]
        loops.start()
        await asyncio.to_thread(receiver.event.wait, 20)
        first = await loops.services.tasks.get(tasks[0].task_id)
        assert first is not None and first.status is TaskState.COMPLETED and first.completed_at is not None
        [hit] = receiver.received
        assert hit.path == "/hook/0"
        assert hit.json() == {"task_id": tasks[0].task_id, "status": "completed", "result": {"duration": 1.5}}
        latency = hit.at - first.completed_at
        states = [(await loops.services.tasks.get(t.task_id)).status for t in tasks[1:]]  # type: ignore[union-attr]
        assert states.count(TaskState.COMPLETED) == 0  # the backlog is still there
        assert latency < 2.0, f"callback {latency:.2f} s after completion"
        print(f"callback latency with 5 jobs queued behind: {latency * 1000:.0f} ms")


@pytest.mark.deep
async def test_worker_reports_unhealthy_while_its_queue_is_unreachable(tmp_path: Path) -> None:
    with redis_server(tmp_path / "r", persistent=True) as server:
        redis = connect(server.url, retries=1)  # fail fast: the test is about consecutive failures
        services = WorkerServices.create(worker_args(server.url, tmp_path, claim_error_limit=3), {}, redis=redis)
        loops = WorkerLoops(services, {"video": TakesTime(0)})
        loops.start()
        try:
            loops.check()
            server.stop()
            await asyncio.sleep(8)  # claims fail with backoff (and each command's own reconnect retries)
            with pytest.raises(RuntimeError, match="job claims in a row failed"):
                loops.check()
            server.start()

            async def healthy() -> bool:
                try:
                    loops.check()
                except RuntimeError:
                    return False
                return True

            await wait_for(healthy, 20)
        finally:
            await loops.stop()


async def test_orphans_are_requeued_and_run_at_start(loops_for, redis_client: Redis) -> None:
    handler = TakesTime(0)
    loops = loops_for(handler)
    task = await loops.services.tasks.create("acct", {})
    await redis_client.delete(keys.job_stream())  # the stream was evicted: the task has no job
    await redis_client.zadd(keys.pending_tasks(), {task.task_id: time.time() - 3600})  # and it is not brand new
    loops.start()

    async def completed() -> bool:
        current = await loops.services.tasks.get(task.task_id)
        return current is not None and current.status is TaskState.COMPLETED

    await wait_for(completed, 15)
    assert handler.ran == [task.task_id]


async def test_housekeeping_removes_only_dead_folders(loops_for, redis_client: Redis, tmp_path: Path) -> None:
    loops = loops_for(TakesTime(0), staging_max_age_s=600)
    tasks = loops.services.tasks
    work = Path(loops.args.work_dir)
    old = time.time() - 3600

    def folder(path: Path, age: float | None = old) -> Path:
        path.mkdir(parents=True)
        (path / "data").write_bytes(b"x")
        if age is not None:
            for p in (path / "data", path):
                os.utime(p, (age, age))
        return path

    dead_upload = folder(loops.args.staging_dir / "dead")
    live_upload = folder(loops.args.staging_dir / "live", age=None)
    running = await tasks.create("acct", {})
    await tasks.transition(running.task_id, TaskState.PROCESSING)
    finished = await tasks.create("acct", {})
    await tasks.transition(finished.task_id, TaskState.FAILED, error={"code": "X", "message": "x"})
    kept_running = folder(work / running.task_id)  # another replica is working on it
    dead_finished = folder(work / finished.task_id)
    dead_unknown = folder(work / ("f" * 32))
    assert await loops.purge_files() == 3
    assert [p.exists() for p in (dead_upload, live_upload, kept_running, dead_finished, dead_unknown)] == [
        False,
        True,
        True,
        False,
        False,
    ]
