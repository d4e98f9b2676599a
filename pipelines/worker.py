"""The JobWorker deployment: claims jobs from the Redis stream, sends callbacks, keeps the disk clean.

Each replica runs four independent loops, so none waits for another:

* **jobs**: up to ``max_concurrent_jobs`` claimed jobs at once, each run by the
  :class:`~pipelines.job_runner.JobRunner`;
* **callbacks**: due webhook deliveries every ``delivery_poll_s`` and at once
  when a task settles, however long the job backlog;
* **housekeeping**: at start and every ``housekeeping_s``: tasks whose job
  message was lost get a new one; languages held for a recognition whose task
  ended are released or failed (``pipelines.added_targets``); voices left ``processing`` without a live
  training fail (``pipelines.voice_lifecycle``); output files past their
  links, dead upload staging folders and abandoned work folders are deleted.

A replica reports unhealthy (``/readyz`` and Serve's health check) when a loop
stopped or when ``claim_error_limit`` claims in a row failed, so a worker
that cannot reach its queue is restarted and seen rather than silently idle.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

from ray import serve

from core import keys, metrics
from core.context import configure_logging
from core.files import LocalFileStore
from core.files.local import purge_folders, stale_folders
from core.settings import AppArgs
from core.tasks import TaskState
from core.tasks.queue import unfinished_by_state
from engines.translation.memory import warm_up as warm_memories
from pipelines.added_targets import settle_waiting
from pipelines.chunked_asr import warm_up
from pipelines.job_runner import JobHandler, JobRunner
from pipelines.services import WorkerServices
from pipelines.video_job import VideoJobHandler
from pipelines.voice_job import VoiceJobHandler
from pipelines.voice_lifecycle import end_stranded_voices

log = logging.getLogger("mediatrans.worker")

#: Files are dead once nobody can use them: uploads wait up to 48 h, output links live 24 h.
#: The output_bytes cap counts an output for exactly this long.
FILE_RETENTION_S = keys.OUTPUT_RETENTION_S
ORPHAN_GRACE_S = 60.0


def default_handlers() -> dict[str, JobHandler]:
    return {"video": VideoJobHandler(), "voice": VoiceJobHandler()}


class WorkerLoops:
    """The four loops of a worker replica; plain asyncio, so tests run them without Serve."""

    def __init__(self, services: WorkerServices, handlers: dict[str, JobHandler], consumer: str | None = None) -> None:
        self.services = services
        self.args = services.args.worker
        self._wake = asyncio.Event()
        self.runner = JobRunner(services, consumer or f"worker-{uuid.uuid4().hex[:8]}", handlers, on_settled=self._wake.set)
        self._slots = asyncio.Semaphore(self.args.max_concurrent_jobs)
        self._running: dict[str, asyncio.Task[None]] = {}
        self.claim_errors = 0
        self.loops: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self.loops = [
            asyncio.create_task(self._jobs(), name="jobs"),
            asyncio.create_task(self._callbacks(), name="callbacks"),
            asyncio.create_task(self._housekeeping(), name="housekeeping"),
            asyncio.create_task(self._gauges(), name="gauges"),
        ]

    async def stop(self, timeout_s: float = 10.0) -> None:
        tasks = [*self.loops, *self._running.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout_s)

    def check(self) -> None:
        """Raise when this replica cannot do its work."""
        for loop in self.loops:
            if loop.done():
                raise RuntimeError(f"the {loop.get_name()} loop stopped") from (None if loop.cancelled() else loop.exception())
        if self.claim_errors >= self.args.claim_error_limit:
            raise RuntimeError(f"{self.claim_errors} job claims in a row failed; the job queue is unreachable")

    async def _jobs(self) -> None:
        jobs = self.services.jobs
        while True:
            await self._slots.acquire()
            try:
                job = await jobs.claim(self.runner.consumer, block_ms=1000)
            except Exception as exc:
                self.claim_errors += 1
                self._slots.release()
                log.warning("cannot claim jobs (%d in a row): %s", self.claim_errors, exc)
                await asyncio.sleep(min(5.0, 0.2 * 2**self.claim_errors))
                continue
            self.claim_errors = 0
            if job is None:
                self._slots.release()
                continue
            running = asyncio.create_task(self._run(job))
            self._running[job.task_id] = running

    async def _run(self, job: Any) -> None:
        try:
            await self.runner.process(job)
        except Exception:  # a Redis outage outlasting every retry: the job stays pending and is reclaimed
            log.exception("job %s crashed", job.message_id)
        finally:
            self._running.pop(job.task_id, None)
            self._slots.release()

    async def _callbacks(self) -> None:
        webhooks = self.services.webhooks
        while True:
            self._wake.clear()  # before sending: a task settling meanwhile wakes the next round
            try:
                while await webhooks.deliver_due():
                    pass
            except Exception:  # deliveries stay scheduled
                log.exception("webhook delivery round failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.args.delivery_poll_s)

    async def _housekeeping(self) -> None:
        while True:
            for chore in (self.requeue_orphans, self.settle_waiting, self.end_stranded_voices, self.purge_files):
                try:
                    await chore()
                except Exception:
                    log.exception("housekeeping step %s failed", getattr(chore, "__name__", chore))
            await asyncio.sleep(self.args.housekeeping_s)

    async def _gauges(self) -> None:
        while True:
            try:
                await self.sample_gauges()
            except Exception as exc:  # a missed sample is not worth a log flood while Redis is away
                log.debug("gauges not sampled: %s", exc)
            await asyncio.sleep(self.args.metrics_interval_s)

    async def sample_gauges(self) -> None:
        queue = await self.services.jobs.stats()
        metrics.queue_state(queue.waiting, queue.in_flight, queue.oldest_waiting_age_s)
        metrics.tasks_by_state(unfinished_by_state(await self.services.tasks.pending_count(), queue))

    async def requeue_orphans(self) -> list[str]:
        requeued = await self.services.tasks.requeue_orphans(older_than_s=ORPHAN_GRACE_S)
        if requeued:
            log.warning("requeued %d tasks whose job was lost: %s", len(requeued), ", ".join(requeued[:20]))
        return requeued

    async def settle_waiting(self) -> None:
        """Languages held for a recognition whose task ended while its worker could not release or fail them."""
        await settle_waiting(self.services)

    async def end_stranded_voices(self) -> list[str]:
        return await end_stranded_voices(self.services)

    async def purge_files(self) -> int:
        """Delete dead outputs, dead upload staging folders and abandoned work folders."""
        now = time.time()
        staging = self.args.staging_dir
        removed = await asyncio.to_thread(purge_folders, staging, now - self.args.staging_max_age_s)
        removed += await self._purge_workdirs(Path(self.args.work_dir), now - self.args.staging_max_age_s)
        files = self.services.files
        if isinstance(files, LocalFileStore):
            removed += await asyncio.to_thread(files.purge, now - FILE_RETENTION_S)
        if removed:
            log.info("purged %d dead folders", removed)
        return removed

    async def _purge_workdirs(self, work: Path, before: float) -> int:
        """Work folders of tasks no worker is running (a worker died mid-job), untouched since ``before``."""
        keep = frozenset({self.args.staging_dir.name, *self._running})
        candidates = await asyncio.to_thread(stale_folders, work, before, keep)
        removed = 0
        for folder in candidates:
            task = await self.services.tasks.get(folder.name)
            if task is None or task.status is not TaskState.PROCESSING:
                await asyncio.to_thread(shutil.rmtree, folder, True)
                removed += 1
        return removed


@serve.deployment(name="JobWorker", ray_actor_options={"num_cpus": 0.1}, max_ongoing_requests=4)
class JobWorker:
    """Background consumer of the job stream (it serves no HTTP traffic)."""

    def __init__(self, args: dict[str, Any], handles: dict[str, Any]) -> None:
        self.args = AppArgs.model_validate(args)
        configure_logging(self.args.log_level)
        services = WorkerServices.create(self.args, handles)
        self.loops = WorkerLoops(services, default_handlers())
        self.loops.start()
        self._warm = asyncio.get_event_loop().create_task(asyncio.to_thread(warm_up))
        self._warm_memories = asyncio.get_event_loop().create_task(asyncio.to_thread(warm_memories))

    def ready(self) -> bool:
        self.loops.check()
        return True

    def check_health(self) -> None:
        self.loops.check()
