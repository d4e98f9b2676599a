"""Task records in Redis: atomic submission, checked transitions, durable endings.

Submitting writes the task hash, the account's task index, the pending
indexes and the job-stream entry in one Lua script, so a crash can never
leave a task without its job (or a job without its task); the same script
checks the account's ``pending_tasks`` and ``output_bytes`` caps
(:mod:`core.caps`), so concurrent submissions cannot pass them. The account's
output files are counted in a ledger (:mod:`core.ledger`) from publication
until housekeeping deletes them. Transitions use optimistic
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
from collections.abc import Mapping
from typing import Any, cast

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from core import caps, keys, metrics
from core.ledger import LEDGER_LUA, Ledger, ledger_keys
from core.redis import TRANSIENT, until_redis_answers
from core.tasks.model import InvalidTransition, Task, TaskState, apply_transition

log = logging.getLogger("mediatrans.tasks")

#: Why a progress report may go unwritten (Redis away, the task gone or no longer processing).
_REPORT_SKIPPED: tuple[type[Exception], ...] = (*TRANSIENT, KeyError, InvalidTransition)


# KEYS: task hash, account index, job stream, pending index, the account's pending set of this kind,
#       the account's output ledger (3 keys: core.ledger), held index
# ARGV: ttl, created_at, task_id, kind, pending cap, output bytes cap (-1: unchecked), pending expiry, held ('1'/'0'),
#       field/value pairs...
# Returns {'ok', job id ('' when held)} or {cap name, used}. Redis does not roll back a script that fails half-way, so
# the caps are checked first (dropping only expired entries), and the command that can fail (XADD on a damaged stream
# key) is the first write of the task; a job whose task is missing is dropped by the runner. A held task gets no job
# and is not in the pending index (the orphan sweep would give it one): it waits in the held index for ``release``.
_SUBMIT = (
    LEDGER_LUA
    + """
local now = tonumber(ARGV[2])
local cap = tonumber(ARGV[5])
if cap >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - tonumber(ARGV[7]))
  local pending = redis.call('ZCARD', KEYS[5])
  if pending >= cap then return {'pending_tasks', pending} end
end
cap = tonumber(ARGV[6])
if cap >= 0 then
  local _, stored = ledger_usage({KEYS[6], KEYS[7], KEYS[8]}, now)
  if stored >= cap then return {'output_bytes', stored} end
end
local id = ''
if ARGV[8] == '1' then
  redis.call('HSET', KEYS[1], unpack(ARGV, 9))
  redis.call('ZADD', KEYS[9], ARGV[2], ARGV[3])
else
  id = redis.call('XADD', KEYS[3], '*', 'task_id', ARGV[3], 'kind', ARGV[4])
  redis.call('HSET', KEYS[1], unpack(ARGV, 9))
  redis.call('HSET', KEYS[1], 'job_id', cjson.encode(id))
  redis.call('ZADD', KEYS[4], ARGV[2], ARGV[3])
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[5], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[5], ARGV[7])
return {'ok', id}
"""
)

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


# A held task gets its job. KEYS: task hash, job stream, pending index, held index. ARGV: task_id, kind.
# Returns the job id, or false when the task is not held (already released, finished or gone).
_RELEASE = """
local since = redis.call('ZSCORE', KEYS[4], ARGV[1])
if not since then return false end
redis.call('ZREM', KEYS[4], ARGV[1])
local raw = redis.call('HGET', KEYS[1], 'status')
if not raw or cjson.decode(raw) ~= 'queued' then return false end
local id = redis.call('XADD', KEYS[2], '*', 'task_id', ARGV[1], 'kind', ARGV[2])
redis.call('HSET', KEYS[1], 'job_id', cjson.encode(id))
redis.call('ZADD', KEYS[3], since, ARGV[1])
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
        self._release = redis.register_script(_RELEASE)
        self.outputs = Ledger(redis)

    async def create(
        self,
        account_id: str,
        params: dict[str, Any],
        *,
        kind: str = "video",
        request_id: str = "",
        estimated_seconds: int | None = None,
        limits: Mapping[str, int | None] | None = None,
        held: bool = False,
        task_id: str | None = None,
    ) -> Task:
        """Store a queued task and enqueue its job, atomically.

        With ``limits`` (the account's caps) the task is refused with QUOTA_EXCEEDED, in the same step, when the
        account already has ``pending_tasks`` unfinished tasks of this kind or its live outputs take
        ``output_bytes``; without them (internal callers) nothing is checked. A ``held`` task is stored queued
        (and counted) without a job, until :meth:`release`; ``task_id`` is a new task's id chosen by the caller
        (a uuid4 hex by default).
        """
        task = Task(
            task_id=task_id or uuid.uuid4().hex,
            account_id=account_id,
            status=TaskState.QUEUED,
            created_at=time.time(),
            params=params,
            kind=kind,
            request_id=request_id,
            estimated_seconds=estimated_seconds,
        )
        fields = [item for pair in task.to_redis().items() for item in pair]
        pending_cap = caps.script_value(limits, caps.PENDING_TASKS) if limits is not None else caps.UNLIMITED
        output_cap = caps.script_value(limits, caps.OUTPUT_BYTES) if limits is not None else caps.UNLIMITED
        outcome = await self._submit(
            keys=[
                keys.task(task.task_id),
                keys.account_tasks(account_id),
                keys.job_stream(),
                keys.pending_tasks(),
                keys.account_pending_tasks(account_id, kind),
                *ledger_keys(keys.account_output_ledger(account_id)),
                keys.held_tasks(),
            ],
            args=[
                keys.TASK_RECORD_TTL_S,
                task.created_at,
                task.task_id,
                kind,
                pending_cap,
                output_cap,
                self.pending_expiry_s,
                "1" if held else "0",
                *fields,
            ],
        )
        if outcome[0] != "ok":
            name = str(outcome[0])
            raise caps.exceeded(name, int(outcome[1]), pending_cap if name == caps.PENDING_TASKS else output_cap)
        task.job_id = str(outcome[1]) or None
        metrics.task_submitted(kind)
        return task

    async def release(self, task_id: str, kind: str = "video") -> bool:
        """Give a held task its job; False when it is not held (released already, finished or gone)."""
        job = await self._release(keys=[keys.task(task_id), keys.job_stream(), keys.pending_tasks(), keys.held_tasks()],
                                  args=[task_id, kind])  # fmt: skip
        return bool(job)

    async def held_ids(self) -> list[str]:
        """Ids of the tasks waiting to be released, oldest first."""
        return cast(list[str], await self.redis.zrange(keys.held_tasks(), 0, -1))

    async def drop_held(self, task_id: str) -> None:
        """Forget a held task that will never be released (gone, or ended without its job)."""
        await self.redis.zrem(keys.held_tasks(), task_id)

    async def get(self, task_id: str) -> Task | None:
        raw = cast(dict[str, str], await self.redis.hgetall(keys.task(task_id)))  # decoded responses
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
            raw = cast(dict[str, str], await pipe.hgetall(key))
            if not raw:
                raise KeyError(task_id)
            task = Task.from_redis(raw)
            apply_transition(task, status, dict(fields), time.time())
            pipe.multi()
            # redis-py types ``mapping`` as Mapping[FieldT, ...], whose invariant key refuses a dict[str, str]
            pipe.hset(key, mapping=task.to_redis())  # type: ignore[arg-type]
            if status.terminal:
                pipe.zrem(keys.pending_tasks(), task_id)
                pipe.zrem(keys.held_tasks(), task_id)
                pipe.zrem(keys.account_pending_tasks(task.account_id, task.kind), task_id)
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
        except _REPORT_SKIPPED as exc:
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
        ids = cast(list[str], await self.redis.zrangebyscore(keys.pending_tasks(), "-inf", time.time() - older_than_s))
        requeued: list[str] = []
        for task_id in ids:
            kind = json.loads(await self.redis.hget(keys.task(task_id), "kind") or '"video"')
            job = await self._requeue(keys=[keys.task(task_id), keys.job_stream(), keys.pending_tasks()], args=[task_id, kind])
            if job:
                requeued.append(task_id)
        return requeued

    async def check_caps(self, account_id: str, kind: str, limits: Mapping[str, int | None], tasks: int = 1) -> None:
        """QUOTA_EXCEEDED when :meth:`create` would refuse one of the account's next ``tasks`` tasks now (a cheap
        early look; :meth:`create` decides)."""
        pending_cap = caps.script_value(limits, caps.PENDING_TASKS)
        if pending_cap >= 0:
            since = time.time() - self.pending_expiry_s
            pending = int(await self.redis.zcount(keys.account_pending_tasks(account_id, kind), f"({since!r}", "+inf"))
            if pending + tasks - 1 >= pending_cap:
                raise caps.exceeded(caps.PENDING_TASKS, pending, pending_cap, adding=tasks if tasks > 1 else None)
        output_cap = caps.script_value(limits, caps.OUTPUT_BYTES)
        if output_cap >= 0:
            stored = await self.stored_output_bytes(account_id)
            if stored >= output_cap:
                raise caps.exceeded(caps.OUTPUT_BYTES, stored, output_cap)

    async def record_output(self, account_id: str, key: str, size: int, made_at: float | None = None) -> None:
        """Count an output file against the account's ``output_bytes`` until housekeeping deletes it.

        A Redis outage delays the count (the task waits), never fails the task or loses the count.
        """
        made_at = time.time() if made_at is None else made_at
        ledger, expires_at = keys.account_output_ledger(account_id), made_at + keys.OUTPUT_RETENTION_S
        await until_redis_answers(lambda: self.outputs.put(ledger, key, size, expires_at), f"output {key}")

    async def stored_output_bytes(self, account_id: str) -> int:
        """Bytes of the account's output files that housekeeping has not deleted yet."""
        _, stored = await self.outputs.usage(keys.account_output_ledger(account_id))
        return stored

    async def pending_count(self) -> int:
        return int(await self.redis.zcard(keys.pending_tasks()))
