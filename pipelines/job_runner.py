"""Runs claimed jobs: one handler per task kind, one place that settles every outcome.

The lifecycle of a job, all of it here::

    claim ─► execute ─► Outcome ─► settle
               │                    ├─ Done / Failed: durable terminal state, ack, callback
               │                    ├─ RetryLater: task back to queued, job left pending
               │                    └─ Skip: ack (nothing to run)
               └─ heartbeat while the handler runs

Handlers (``video`` today) only turn a task into an :class:`~pipelines.outcome.Outcome`
or raise; the runner maps exceptions through the error table: an engine that
is busy or down is retried later, anything else fails the task with the
group's code. Plain async code, so tests drive it without Serve.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import shutil
import uuid
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Protocol

from core import metrics
from core.boundary import REPLICA_GONE
from core.context import adopt_request_id, request_id_var
from core.errors import ErrorGroup, task_error
from core.redis import until_redis_answers
from core.tasks import InvalidTransition, Job, Task, TaskState
from core.tasks.store import TRANSIENT
from engines.errors import EngineUnavailable
from pipelines.outcome import Done, Failed, Outcome, RetryLater, Skip
from pipelines.services import WorkerServices

log = logging.getLogger("mediatrans.worker")

try:  # a capability deployment refused work because its queue is full
    from ray.serve.exceptions import BackPressureError
except ImportError:  # pragma: no cover - ray is a hard dependency
    BackPressureError = EngineUnavailable  # type: ignore[misc,assignment]

#: A replica busy, down or dying: the job is retried later.
_ENGINE_AWAY: tuple[type[BaseException], ...] = (EngineUnavailable, BackPressureError, *REPLICA_GONE)

INTERRUPTED = {"code": "INTERNAL_ERROR", "message": "Processing was interrupted repeatedly; resubmit the task."}

#: Writes ``(stage, progress, estimated_seconds)`` to the task record, best-effort.
ProgressSink = Callable[[str, int, int], Awaitable[None]]


@dataclasses.dataclass(frozen=True)
class JobContext:
    """What a handler gets besides the task."""

    services: WorkerServices
    workdir: Path
    report: ProgressSink


class JobHandler(Protocol):
    """Runs one kind of task."""

    #: Code table of the task's endpoint group (for the ``error`` of a failed task).
    error_group: ErrorGroup
    #: Stage shown while the task starts.
    first_stage: str

    async def run(self, task: Task, ctx: JobContext) -> Outcome: ...


class JobRunner:
    """Executes claimed jobs and settles their outcomes.

    Args:
        services: the worker's stores and handles.
        consumer: this runner's name in the job stream's consumer group.
        handlers: handler per task kind.
        on_settled: called after a task reached a terminal state (wakes the callback sender).
    """

    def __init__(
        self,
        services: WorkerServices,
        consumer: str,
        handlers: Mapping[str, JobHandler],
        on_settled: Callable[[], None] | None = None,
    ) -> None:
        self.services = services
        self.consumer = consumer
        self.handlers = dict(handlers)
        self.on_settled = on_settled
        self.args = services.args

    async def process(self, job: Job) -> Outcome:
        """Run ``job`` to an outcome and settle it; never raises for a task's own failure."""
        outcome = await self.execute(job)
        await self.settle(job, outcome)
        return outcome

    async def execute(self, job: Job) -> Outcome:
        task = await self.services.tasks.get(job.task_id)
        if task is None or task.status.terminal:
            return Skip("task gone or finished")
        if job.deliveries > self.args.worker.max_deliveries:
            return Failed(INTERRUPTED)
        handler = self.handlers.get(task.kind)
        if handler is None:
            return Failed({"code": "INTERNAL_ERROR", "message": f"No worker runs {task.kind!r} tasks; resubmit later."})
        try:
            task = await self.services.tasks.transition(
                task.task_id, TaskState.PROCESSING, worker=self.consumer, attempts=job.deliveries, stage=handler.first_stage
            )
        except (InvalidTransition, KeyError):
            return Skip("task finished meanwhile")
        return await self._run(handler, task, job)

    async def _run(self, handler: JobHandler, task: Task, job: Job) -> Outcome:
        # A folder per run: a run whose worker died may leave processes (ffmpeg, an ASR call) still touching
        # its files, so a rerun never reuses them; the task folder goes when housekeeping finds the task finished.
        workdir = Path(self.args.worker.work_dir) / task.task_id / f"run-{job.deliveries}-{uuid.uuid4().hex[:8]}"
        workdir.mkdir(parents=True)
        heartbeat = asyncio.create_task(self._heartbeat(job))
        token = adopt_request_id(task.request_id or task.task_id)
        try:
            return await handler.run(task, JobContext(self.services, workdir, self._reporter(task.task_id)))
        except _ENGINE_AWAY as exc:  # a replica busy, down or dying: retry
            log.warning("task %s: engine unavailable (%s); will retry", task.task_id, exc)
            return RetryLater(type(exc).__name__)
        except Exception as exc:
            log.warning("task %s failed: %s", task.task_id, exc, exc_info=not isinstance(exc, ValueError))
            return Failed(task_error(exc, handler.error_group))
        finally:
            request_id_var.reset(token)
            heartbeat.cancel()
            shutil.rmtree(workdir, ignore_errors=True)
            with contextlib.suppress(OSError):  # empty unless an earlier run left its folder behind
                workdir.parent.rmdir()

    async def settle(self, job: Job, outcome: Outcome) -> None:
        """The single place where an outcome becomes task state, an acknowledgement and a callback."""
        tasks = self.services.tasks
        if isinstance(outcome, Skip):
            await self._ack(job)
            return
        if isinstance(outcome, RetryLater):
            with contextlib.suppress(*TRANSIENT, InvalidTransition, KeyError):
                await tasks.transition(job.task_id, TaskState.QUEUED, stage=None)
            return  # the job stays pending: redelivered after reclaim_after_s
        if isinstance(outcome, Done):
            status, fields = TaskState.COMPLETED, {"result": outcome.result}
        else:
            status, fields = TaskState.FAILED, {"error": outcome.error}
        try:
            finished: Task | None = await tasks.settle(job.task_id, status, stage=None, estimated_seconds=None, **fields)
        except (InvalidTransition, KeyError):  # expired or finished by another runner meanwhile
            finished = None
        if finished is not None:
            metrics.task_finished(finished.kind, status.value)
        if finished is not None and status is TaskState.FAILED:
            await self._on_failed(finished)
        await self._ack(job)
        if finished is not None:
            await self._notify(finished)

    async def _on_failed(self, task: Task) -> None:
        """Let the handler mirror a failure into its own records (a voice marked failed)."""
        hook = getattr(self.handlers.get(task.kind), "on_failed", None)
        if hook is not None:
            await until_redis_answers(lambda: hook(task, self.services), f"failure of task {task.task_id}")

    async def _ack(self, job: Job) -> None:
        try:
            await self.services.jobs.ack(job.message_id)
        except TRANSIENT as exc:  # redelivered later, then skipped: the task is finished
            log.warning("job %s not acknowledged (%s); it will be skipped when redelivered", job.message_id, exc)

    async def _notify(self, task: Task) -> None:
        if not task.params.get("callback_url"):
            return

        async def schedule() -> None:
            account = await self.services.accounts.get(task.account_id)
            if account is not None:
                await self.services.webhooks.schedule(task, account)

        await until_redis_answers(schedule, f"callback of task {task.task_id}")
        if self.on_settled is not None:
            self.on_settled()

    def _reporter(self, task_id: str) -> ProgressSink:
        async def write(stage: str, percent: int, remaining_s: int) -> None:
            await self.services.tasks.report(task_id, stage=stage, progress=percent, estimated_seconds=remaining_s)

        return write

    async def _heartbeat(self, job: Job) -> None:
        while True:
            await asyncio.sleep(self.args.worker.heartbeat_s)
            with contextlib.suppress(Exception):
                await self.services.jobs.heartbeat(self.consumer, job)
