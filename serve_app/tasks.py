"""Video task records and the job stream that hands tasks to workers.

States (contract section 3.1) and the transitions this service allows::

    queued ──► processing ──► completed
       │           │  ▲
       │           │  └── (re-queued when its worker died and another claims it)
       │           └────► failed
       └───────────────► expired   (pending more than 48 h; also from processing)

Jobs travel through a Redis stream read by a consumer group. A worker that
claims a job keeps it alive with :meth:`JobQueue.heartbeat`; a job whose
worker stopped heart-beating for ``min_idle_ms`` is claimed by another worker
(XAUTOCLAIM), and a job delivered more than ``max_deliveries`` times fails its
task instead of looping forever.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import time
import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar

from redis.asyncio import Redis
from redis.exceptions import ResponseError, WatchError

from serve_app import keys


class TaskState(str, enum.Enum):
    """Video task states of the contract."""

    QUEUED = "queued"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    EXPIRED = "expired"

    @property
    def terminal(self) -> bool:
        return self in (TaskState.COMPLETED, TaskState.FAILED, TaskState.EXPIRED)


S = TaskState
TRANSITIONS: dict[TaskState, frozenset[TaskState]] = {
    S.QUEUED: frozenset({S.PROCESSING, S.FAILED, S.EXPIRED}),
    S.PROCESSING: frozenset({S.PROCESSING, S.QUEUED, S.COMPLETED, S.FAILED, S.EXPIRED}),
    S.COMPLETED: frozenset(),
    S.FAILED: frozenset(),
    S.EXPIRED: frozenset(),
}


class InvalidTransition(Exception):
    """A state change the lifecycle does not allow (e.g. completed → processing)."""


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclasses.dataclass
class Task:
    """A video translation task as stored in Redis."""

    task_id: str
    account_id: str
    status: TaskState
    created_at: float
    params: dict[str, Any]
    request_id: str = ""
    progress: int = 0
    stage: str | None = None
    estimated_seconds: int | None = None
    completed_at: float | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    worker: str | None = None
    attempts: int = 0

    def to_redis(self) -> dict[str, str]:
        data = dataclasses.asdict(self)
        data["status"] = self.status.value
        return {k: json.dumps(v) for k, v in data.items()}

    @classmethod
    def from_redis(cls, raw: dict[str, str]) -> Task:
        data = {k: json.loads(v) for k, v in raw.items()}
        data["status"] = TaskState(data["status"])
        return cls(**data)

    def public(self) -> dict[str, Any]:
        """The task record of contract section 2.1."""
        body: dict[str, Any] = {
            "task_id": self.task_id,
            "status": self.status.value,
            "progress": 100 if self.status is S.COMPLETED else self.progress,
            "created_at": iso(self.created_at),
        }
        if self.status in (S.QUEUED, S.PROCESSING) and self.estimated_seconds is not None:
            body["estimated_seconds"] = self.estimated_seconds
        if self.status is S.PROCESSING and self.stage:
            body["stage"] = self.stage
        if self.status is S.COMPLETED:
            body["result"] = self.result or {}
            if self.completed_at is not None:
                body["completed_at"] = iso(self.completed_at)
        if self.status in (S.FAILED, S.EXPIRED) and self.error:
            body["error"] = self.error
        return body


class TaskStore:
    def __init__(self, redis: Redis, pending_expiry_s: int = keys.TASK_PENDING_EXPIRY_S) -> None:
        self.redis = redis
        self.pending_expiry_s = pending_expiry_s

    async def create(
        self, account_id: str, params: dict[str, Any], *, request_id: str = "", estimated_seconds: int | None = None
    ) -> Task:
        task = Task(
            task_id=uuid.uuid4().hex,
            account_id=account_id,
            status=S.QUEUED,
            created_at=time.time(),
            params=params,
            request_id=request_id,
            estimated_seconds=estimated_seconds,
        )
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(keys.task(task.task_id), mapping=task.to_redis())
        pipe.expire(keys.task(task.task_id), keys.TASK_RECORD_TTL_S)
        pipe.zadd(keys.account_tasks(account_id), {task.task_id: task.created_at})
        pipe.expire(keys.account_tasks(account_id), keys.TASK_RECORD_TTL_S)
        await pipe.execute()
        return task

    async def get(self, task_id: str) -> Task | None:
        raw = await self.redis.hgetall(keys.task(task_id))
        return await self.load(raw) if raw else None

    async def load(self, raw: dict[str, str] | list[str]) -> Task:
        """A task from its stored hash (a dict, or the flat list a script returns), expired if overdue."""
        if isinstance(raw, list):
            raw = dict(zip(raw[::2], raw[1::2], strict=True))
        task = Task.from_redis(raw)
        if not task.status.terminal and time.time() - task.created_at > self.pending_expiry_s:
            task = await self.expire(task)
        return task

    async def transition(self, task_id: str, status: TaskState, **fields: Any) -> Task:
        """Move a task to ``status`` (checked against :data:`TRANSITIONS`) and set fields.

        ``progress`` never decreases. Uses optimistic locking (WATCH) so two
        workers cannot both complete one task.
        """
        key = keys.task(task_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    raw = await pipe.hgetall(key)
                    if not raw:
                        raise KeyError(task_id)
                    task = Task.from_redis(raw)
                    _apply(task, status, fields)
                    pipe.multi()
                    pipe.hset(key, mapping=task.to_redis())
                    await pipe.execute()
                    return task
                except WatchError:
                    continue

    async def expire(self, task: Task) -> Task:
        try:
            return await self.transition(
                task.task_id,
                S.EXPIRED,
                error={"code": "TASK_EXPIRED", "message": "Task not completed within 48 hours; resubmit it."},
            )
        except InvalidTransition:
            return await self.get(task.task_id) or task


def _apply(task: Task, status: TaskState, fields: dict[str, Any]) -> None:
    if status not in TRANSITIONS[task.status]:
        raise InvalidTransition(f"task {task.task_id}: {task.status.value} → {status.value}")
    if "progress" in fields:
        fields["progress"] = max(task.progress, min(int(fields["progress"]), 100))
    for name, value in fields.items():
        setattr(task, name, value)
    task.status = status
    if status is S.COMPLETED:
        task.progress = 100
        task.stage = None
        task.completed_at = task.completed_at or time.time()


@dataclasses.dataclass(frozen=True)
class Job:
    message_id: str
    task_id: str
    deliveries: int


class JobQueue:
    """A Redis stream with one consumer group of workers."""

    def __init__(self, redis: Redis, *, min_idle_ms: int = 60_000, max_deliveries: int = 3) -> None:
        self.redis = redis
        self.stream = keys.job_stream()
        self.min_idle_ms = min_idle_ms
        self.max_deliveries = max_deliveries

    async def ensure_group(self) -> None:
        try:
            await self.redis.xgroup_create(self.stream, keys.JOB_GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def enqueue(self, task_id: str) -> str:
        return str(await self.redis.xadd(self.stream, {"task_id": task_id}, maxlen=keys.JOB_STREAM_MAXLEN, approximate=True))

    async def claim(self, consumer: str, block_ms: int = 1000) -> Job | None:
        """Take over a job whose worker went silent, else read a new one."""
        job = await self._reclaim(consumer)
        if job is not None:
            return job
        reply = await self.redis.xreadgroup(keys.JOB_GROUP, consumer, {self.stream: ">"}, count=1, block=block_ms)
        for _stream, messages in reply or []:
            for message_id, fields in messages:
                return Job(str(message_id), fields["task_id"], 1)
        return None

    async def _reclaim(self, consumer: str) -> Job | None:
        _cursor, messages, *_ = await self.redis.xautoclaim(
            self.stream, keys.JOB_GROUP, consumer, self.min_idle_ms, start_id="0-0", count=1
        )
        for message_id, fields in messages:
            if not fields:  # trimmed from the stream: nothing to run
                await self.ack(str(message_id))
                continue
            pending = await self.redis.xpending_range(self.stream, keys.JOB_GROUP, message_id, message_id, 1)
            deliveries = int(pending[0]["times_delivered"]) if pending else 1
            return Job(str(message_id), fields["task_id"], deliveries)
        return None

    async def heartbeat(self, consumer: str, job: Job) -> None:
        """Reset the job's idle time so no other worker takes it over."""
        await self.redis.xclaim(self.stream, keys.JOB_GROUP, consumer, 0, [job.message_id], justid=True)

    async def ack(self, message_id: str) -> None:
        await self.redis.xack(self.stream, keys.JOB_GROUP, message_id)
        await self.redis.xdel(self.stream, message_id)


class SpeedStats:
    """Measured processing speed (seconds of work per second of video), for estimates.

    An exponentially weighted mean per job kind, so estimates follow the
    deployed hardware rather than a constant.
    """

    ALPHA = 0.3
    DEFAULTS: ClassVar[dict[str, float]] = {"subtitles": 0.5, "burn": 1.0}
    FIXED_OVERHEAD_S = 5.0

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def record(self, kind: str, elapsed_s: float, media_s: float) -> None:
        if media_s <= 0:
            return
        observed = max(0.0, elapsed_s - self.FIXED_OVERHEAD_S) / media_s
        current = await self.factor(kind)
        await self.redis.set(keys.speed(kind), str((1 - self.ALPHA) * current + self.ALPHA * observed), ex=keys.SPEED_TTL_S)

    async def factor(self, kind: str) -> float:
        raw = await self.redis.get(keys.speed(kind))
        return float(raw) if raw else self.DEFAULTS.get(kind, 1.0)

    async def estimate(self, kind: str, media_s: float | None) -> int:
        """Seconds a task of ``media_s`` seconds is expected to take (unknown length: 10 min)."""
        return max(1, round(self.FIXED_OVERHEAD_S + (await self.factor(kind)) * (media_s if media_s else 600.0)))
