"""The VideoWorker deployment: claims video jobs from the Redis stream and runs the pipeline.

Each replica is one consumer of the job stream's group. A claimed job is kept
alive by a heartbeat; if the replica dies, another replica takes the job over
after ``reclaim_after_s`` (the task goes back to ``processing`` from the start,
with its progress never decreasing). A job delivered more than
``max_deliveries`` times fails its task with ``INTERNAL_ERROR`` instead of
looping. Retryable failures (a busy or unreachable engine) leave the job for a
later delivery; every other failure ends the task as ``failed`` with the
contract's code. Completion and failure both schedule the callback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ray import serve

from deployments.engines.errors import EngineUnavailable
from pipelines.chunked_asr import warm_up
from pipelines.progress import Progress
from pipelines.video_translation import PipelineDeps, translate_video
from pipelines.wiring import build_deps, build_params
from serve_app import keys
from serve_app.context import configure_logging, request_id_var
from serve_app.errors import ErrorGroup, resolve
from serve_app.files import LocalFileStore
from serve_app.responses import to_api_error
from serve_app.settings import AppArgs
from serve_app.tasks import Job, JobQueue, SpeedStats, Task, TaskState, TaskStore
from serve_app.worker_services import WorkerServices

log = logging.getLogger("mediatrans.worker")

PURGE_INTERVAL_S = 3600

DepsFactory = Callable[[WorkerServices, Task], PipelineDeps]


def task_error(exc: BaseException) -> dict[str, str]:
    """The task's ``error`` object: the video group's code for the failure and a message."""
    error = to_api_error(exc)
    _status, code = resolve(ErrorGroup.VIDEO, error.kind)
    return {"code": str(code), "message": error.message}


class JobProcessor:
    """Runs claimed jobs; plain async code so tests can drive it without Serve."""

    def __init__(self, services: WorkerServices, consumer: str, deps_factory: DepsFactory = build_deps) -> None:
        self.services = services
        self.consumer = consumer
        self.args = services.args
        self.deps_factory = deps_factory

    async def process(self, job: Job) -> None:
        task = await self.services.tasks.get(job.task_id)
        if task is None or task.status.terminal:
            await self.services.jobs.ack(job.message_id)
            return
        if job.deliveries > self.args.worker.max_deliveries:
            await self._fail(
                task, {"code": "INTERNAL_ERROR", "message": "Processing was interrupted repeatedly; resubmit the task."}
            )
            await self.services.jobs.ack(job.message_id)
            return
        heartbeat = asyncio.create_task(self._heartbeat(job))
        token = request_id_var.set(task.request_id or task.task_id)
        try:
            await self._run(task, job)
        finally:
            request_id_var.reset(token)
            heartbeat.cancel()

    async def _run(self, task: Task, job: Job) -> None:
        tasks: TaskStore = self.services.tasks
        task = await tasks.transition(
            task.task_id, TaskState.PROCESSING, worker=self.consumer, attempts=job.deliveries, stage="validating"
        )
        workdir = Path(self.args.worker.work_dir) / task.task_id
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir(parents=True)
        started = time.monotonic()
        progress = Progress(self._sink(task.task_id), initial_estimate_s=task.estimated_seconds or 60)
        try:
            params = build_params(task.params)
            result = await translate_video(
                params, task.params["source"], self.deps_factory(self.services, task), progress, workdir
            )
        except EngineUnavailable as exc:  # retryable: leave the job pending for a later delivery
            log.warning("task %s: engine unavailable (%s); will retry", task.task_id, exc)
            await tasks.transition(task.task_id, TaskState.QUEUED, stage=None)
            return
        except Exception as exc:
            log.warning("task %s failed: %s", task.task_id, exc, exc_info=not isinstance(exc, ValueError))
            await self._fail(task, task_error(exc))
            await self.services.jobs.ack(job.message_id)
            return
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        log.info("task %s completed in %.1f s; stages %s", task.task_id, time.monotonic() - started, progress.timings())
        done = await tasks.transition(task.task_id, TaskState.COMPLETED, result=result, stage=None, estimated_seconds=None)
        await SpeedStats(self.services.redis).record(_kind(task), time.monotonic() - started, float(result.get("duration") or 0))
        await self.services.jobs.ack(job.message_id)
        await self._notify(done)

    async def _fail(self, task: Task, error: dict[str, str]) -> None:
        failed = await self.services.tasks.transition(
            task.task_id, TaskState.FAILED, error=error, stage=None, estimated_seconds=None
        )
        await self._notify(failed)

    async def _notify(self, task: Task) -> None:
        if not task.params.get("callback_url"):
            return
        account = await self.services.accounts.get(task.account_id)
        if account is not None:
            await self.services.webhooks.schedule(task, account)

    def _sink(self, task_id: str) -> Any:
        async def write(stage: str, percent: int, remaining_s: int) -> None:
            await self.services.tasks.transition(
                task_id, TaskState.PROCESSING, stage=stage, progress=percent, estimated_seconds=remaining_s
            )

        return write

    async def _heartbeat(self, job: Job) -> None:
        while True:
            await asyncio.sleep(self.args.worker.heartbeat_s)
            with contextlib.suppress(Exception):
                await self.services.jobs.heartbeat(self.consumer, job)


def _kind(task: Task) -> str:
    return "burn" if task.params.get("output_format") in ("burned_video", "all") else "subtitles"


@serve.deployment(name="VideoWorker", ray_actor_options={"num_cpus": 0.1}, max_ongoing_requests=4)
class VideoWorker:
    """Background consumer of the job stream (it serves no HTTP traffic)."""

    def __init__(self, args: dict[str, Any], handles: dict[str, Any]) -> None:
        self.args = AppArgs.model_validate(args)
        configure_logging(self.args.log_level)
        self.services = WorkerServices.create(self.args, handles)
        self.processor = JobProcessor(self.services, consumer=f"worker-{uuid.uuid4().hex[:8]}")
        self._slots = asyncio.Semaphore(self.args.worker.max_concurrent_jobs)
        self._running: set[asyncio.Task[None]] = set()
        self._purged_at = 0.0
        loop = asyncio.get_event_loop()
        self._warm = loop.create_task(asyncio.to_thread(warm_up))
        self._loop = loop.create_task(self._consume())

    async def _consume(self) -> None:
        jobs: JobQueue = self.services.jobs
        await jobs.ensure_group()
        while True:
            await self._slots.acquire()
            try:
                job = await jobs.claim(self.processor.consumer, block_ms=1000)
            except Exception:
                log.exception("cannot claim jobs")
                job = None
                await asyncio.sleep(1)
            if job is None:
                self._slots.release()
                await self._housekeeping()
                continue
            running = asyncio.create_task(self._run(job))
            self._running.add(running)
            running.add_done_callback(self._running.discard)

    async def _housekeeping(self) -> None:
        """Between jobs: send due callbacks; hourly, delete stored files nobody can use any more."""
        try:
            await self.services.webhooks.deliver_due()
        except Exception:  # deliveries stay scheduled
            log.exception("webhook delivery round failed")
        if time.monotonic() - self._purged_at > PURGE_INTERVAL_S and isinstance(self.services.files, LocalFileStore):
            self._purged_at = time.monotonic()
            # Uploads wait up to 48 h for a worker; outputs are linked for 24 h: older files are dead.
            removed = await asyncio.to_thread(self.services.files.purge, time.time() - keys.TASK_PENDING_EXPIRY_S - 3600)
            if removed:
                log.info("purged %d expired task folders", removed)

    async def _run(self, job: Job) -> None:
        try:
            await self.processor.process(job)
        except Exception:
            log.exception("job %s crashed", job.message_id)
        finally:
            self._slots.release()

    def ready(self) -> bool:
        if self._loop.done():
            raise RuntimeError("job loop stopped") from self._loop.exception()
        return True

    def check_health(self) -> None:
        self.ready()
