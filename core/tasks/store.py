"""Task records in Redis: atomic submission, checked transitions, durable endings.

Submitting writes the task hash, the account's task index, the pending index
and the job-stream entry in one Lua script, so a crash can never leave a task
without its job (or a job without its task). Transitions use optimistic
locking (WATCH) so two workers cannot both finish one task.

Writes differ in how much they matter:

* progress updates are best-effort (:meth:`TaskStore.report`): a Redis hiccup
  costs one progress tick, never the task;
* terminal transitions are durable (:meth:`TaskStore.settle`): retried with
  backoff until Redis answers, because a lost "completed" is a lost result.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from core import keys, metrics
from core.redis import TRANSIENT, until_redis_answers
from core.tasks.model import InvalidTransition, Task, TaskState, apply_transition

log = logging.getLogger("mediatrans.tasks")


# KEYS: task hash, account index, job stream, pending index
# ARGV: ttl, created_at, task_id, kind, field/value pairs...
# Redis does not roll back a script that fails half-way, so the command that can fail (XADD on a
# damaged stream key) runs first; a job whose task is missing is dropped by the runner.
_SUBMIT = """
local id = redis.call('XADD', KEYS[3], '*', 'task_id', ARGV[3], 'kind', ARGV[4])
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('HSET', KEYS[1], 'job_id', cjson.encode(id))
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[3])
return id
"""

# A pending task whose job message is gone gets a new one. KEYS: task hash, job stream, pending index.
# ARGV: task_id, kind. Returns the new job id, or false when the task is finished, gone or still has its job.
_REQUEUE = """
local raw = redis.call('HMGET', KEYS[1], 'status', 'job_id')
if not raw[1] then redis.call('ZREM', KEYS[3], ARGV[1]) return false end
local status = cjson.decode(raw[1])
if status ~= 'queued' and status ~= 'processing' then redis.call('ZREM', KEYS[3], ARGV[1]) return false end
if raw[2] then
  local job = cjson.decode(raw[2])
  if job ~= cjson.null and #redis.call('XRANGE', KEYS[2], job, job) > 0 then return false end
end
local id = redis.call('XADD', KEYS[2], '*', 'task_id', ARGV[1], 'kind', ARGV[2])
redis.call('HSET', KEYS[1], 'job_id', cjson.encode(id), 'status', cjson.encode('queued'), 'stage', 'null')
return id
"""


class TaskStore:
    """Create, read and move tasks.

    Args:
        redis: async client with decoded responses.
        pending_expiry_s: a task not finished this long after creation expires (contract: 48 h).
        settle_backoff_s: first and largest pause between attempts of a durable write.
    """

    def __init__(
        self,
        redis: Redis,
        pending_expiry_s: int = keys.TASK_PENDING_EXPIRY_S,
        settle_backoff_s: tuple[float, float] = (0.2, 5.0),
    ) -> None:
        self.redis = redis
        self.pending_expiry_s = pending_expiry_s
        self.settle_backoff_s = settle_backoff_s
        self._submit = redis.register_script(_SUBMIT)
        self._requeue = redis.register_script(_REQUEUE)

    async def create(
        self,
        account_id: str,
        params: dict[str, Any],
        *,
        kind: str = "video",
        request_id: str = "",
        estimated_seconds: int | None = None,
    ) -> Task:
        """Store a queued task and enqueue its job, atomically."""
        task = Task(
            task_id=uuid.uuid4().hex,
            account_id=account_id,
            status=TaskState.QUEUED,
            created_at=time.time(),
            params=params,
            kind=kind,
            request_id=request_id,
            estimated_seconds=estimated_seconds,
        )
        fields = [item for pair in task.to_redis().items() for item in pair]
        job_id = await self._submit(
            keys=[keys.task(task.task_id), keys.account_tasks(account_id), keys.job_stream(), keys.pending_tasks()],
            args=[keys.TASK_RECORD_TTL_S, task.created_at, task.task_id, kind, *fields],
        )
        task.job_id = str(job_id)
        metrics.task_submitted(kind)
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
        """Move a task to ``status`` (checked against the state machine) and set fields.

        Raises KeyError for a missing task, InvalidTransition for a forbidden
        move, and Redis errors as they come.
        """
        key = keys.task(task_id)

        async def move(pipe: Pipeline) -> Task:
            raw = await pipe.hgetall(key)
            if not raw:
                raise KeyError(task_id)
            task = Task.from_redis(raw)
            apply_transition(task, status, dict(fields), time.time())
            pipe.multi()
            pipe.hset(key, mapping=task.to_redis())
            if status.terminal:
                pipe.zrem(keys.pending_tasks(), task_id)
            return task

        task: Task = await self.redis.transaction(move, key, value_from_callable=True)
        return task

    async def settle(self, task_id: str, status: TaskState, **fields: Any) -> Task:
        """A terminal transition that survives Redis outages: retried until Redis answers."""
        if not status.terminal:
            raise ValueError(f"settle() is for terminal states, not {status.value}")
        return await until_redis_answers(
            lambda: self.transition(task_id, status, **fields), f"task {task_id} → {status.value}", self.settle_backoff_s
        )

    async def report(self, task_id: str, **fields: Any) -> bool:
        """Best-effort progress of a processing task; False when it was not written."""
        try:
            await self.transition(task_id, TaskState.PROCESSING, **fields)
        except (*TRANSIENT, KeyError, InvalidTransition) as exc:
            log.warning("task %s: progress not recorded (%s)", task_id, exc)
            return False
        return True

    async def expire(self, task: Task) -> Task:
        try:
            expired = await self.transition(
                task.task_id,
                TaskState.EXPIRED,
                error={"code": "TASK_EXPIRED", "message": "Task not completed within 48 hours; resubmit it."},
            )
        except InvalidTransition:
            return await self.get(task.task_id) or task
        metrics.task_finished(task.kind, TaskState.EXPIRED.value)
        return expired

    async def requeue_orphans(self, older_than_s: float = 60.0) -> list[str]:
        """Give a new job to every unfinished task whose job message is gone.

        A job disappears when the stream is evicted or lost in a failover while
        its task record survives. Tasks created in the last ``older_than_s``
        seconds are left alone. Returns the ids of requeued tasks.
        """
        ids = await self.redis.zrangebyscore(keys.pending_tasks(), "-inf", time.time() - older_than_s)
        requeued: list[str] = []
        for task_id in ids:
            kind = json.loads(await self.redis.hget(keys.task(task_id), "kind") or '"video"')
            job = await self._requeue(keys=[keys.task(task_id), keys.job_stream(), keys.pending_tasks()], args=[task_id, kind])
            if job:
                requeued.append(task_id)
        return requeued

    async def pending_count(self) -> int:
        return int(await self.redis.zcard(keys.pending_tasks()))
