"""The job stream: a Redis stream read by one consumer group of workers.

A worker that claims a job keeps it alive with :meth:`JobQueue.heartbeat`; a
job whose worker stopped heart-beating for ``min_idle_ms`` is claimed by
another worker (XAUTOCLAIM, following its cursor through the whole pending
list, so a dead worker's job is found however many live ones precede it).
Acknowledged jobs are deleted, so the stream holds only unfinished work and
is never trimmed: trimming would drop jobs.

The consumer group can vanish while the stream lives on (``FLUSHALL``, a
failover to an empty replica, eviction): ``XADD`` then recreates the stream
without it and every read answers ``NOGROUP``. :meth:`JobQueue.claim`
recreates the group and reads again, starting from the stream's first entry
so jobs added meanwhile are delivered.
"""

from __future__ import annotations

import dataclasses
import time
from typing import cast

from redis.asyncio import Redis
from redis.exceptions import ResponseError

from core import keys

#: A stream entry as the decoded client returns it: message id and fields (None once deleted from the stream).
_Entry = tuple[str, dict[str, str] | None]


@dataclasses.dataclass(frozen=True)
class Job:
    """One delivery of a task's job message."""

    message_id: str
    task_id: str
    deliveries: int
    kind: str = "video"


class JobQueue:
    """Claim, keep alive and acknowledge jobs.

    Args:
        redis: async client with decoded responses.
        min_idle_ms: a claimed job silent this long may be taken over.
        max_deliveries: deliveries after which a job is poison (the runner fails its task).
    """

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

    async def enqueue(self, task_id: str, kind: str = "video") -> str:
        """A job message for ``task_id`` (tasks are normally enqueued by ``TaskStore.create``)."""
        return str(await self.redis.xadd(self.stream, {"task_id": task_id, "kind": kind}))

    async def claim(self, consumer: str, block_ms: int = 1000) -> Job | None:
        """Take over a job whose worker went silent, else read a new one (None after ``block_ms``)."""
        try:
            return await self._claim(consumer, block_ms)
        except ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
        await self.ensure_group()
        return await self._claim(consumer, block_ms)

    async def _claim(self, consumer: str, block_ms: int) -> Job | None:
        job = await self._reclaim(consumer)
        if job is not None:
            return job
        reply = cast(  # RESP2, decoded: [stream name, entries] per stream read, None when none came
            "list[tuple[str, list[_Entry]]] | None",
            await self.redis.xreadgroup(keys.JOB_GROUP, consumer, {self.stream: ">"}, count=1, block=block_ms),
        )
        for _stream, messages in reply or []:
            for message_id, fields in messages:
                if fields:
                    return _job(str(message_id), fields, 1)
                await self.ack(str(message_id))
        return None

    async def _reclaim(self, consumer: str) -> Job | None:
        cursor = "0-0"
        while True:
            cursor, messages, *_deleted = await self.redis.xautoclaim(
                self.stream, keys.JOB_GROUP, consumer, self.min_idle_ms, start_id=cursor, count=1
            )
            for message_id, fields in messages:
                if not fields:  # deleted from the stream meanwhile: nothing to run
                    await self.ack(str(message_id))
                    continue
                pending = await self.redis.xpending_range(self.stream, keys.JOB_GROUP, message_id, message_id, 1)
                deliveries = int(pending[0]["times_delivered"]) if pending else 1
                return _job(str(message_id), fields, deliveries)
            if str(cursor) == "0-0":
                return None

    async def heartbeat(self, consumer: str, job: Job) -> None:
        """Reset the job's idle time so no other worker takes it over (JUSTID: the delivery count stays)."""
        await self.redis.xclaim(self.stream, keys.JOB_GROUP, consumer, 0, [job.message_id], justid=True)

    async def ack(self, message_id: str) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.xack(self.stream, keys.JOB_GROUP, message_id)
            pipe.xdel(self.stream, message_id)
            await pipe.execute()

    async def depth(self) -> int:
        """Jobs in the stream: waiting or being worked on."""
        try:
            return int(await self.redis.xlen(self.stream))
        except ResponseError:
            return 0

    async def stats(self, now: float | None = None) -> QueueStats:
        """Jobs waiting (not yet claimed), in flight (claimed, unacknowledged), and the oldest waiting job's age."""
        now = time.time() if now is None else now
        waiting, in_flight, after = await self._group_state()
        if waiting == 0:
            return QueueStats(0, in_flight, 0.0)
        first = await self.redis.xrange(self.stream, min=f"({after}" if after else "-", count=1)
        oldest_ms = int(str(first[0][0]).split("-")[0]) if first else int(now * 1000)
        return QueueStats(waiting, in_flight, max(0.0, now - oldest_ms / 1000))

    async def _group_state(self) -> tuple[int, int, str]:
        """(waiting, in flight, last delivered id) of the worker group; all waiting when the group is gone.

        Acknowledged jobs are deleted, so the stream holds exactly the waiting and the in-flight ones:
        waiting is its length less the group's pending count.
        """
        try:
            groups = await self.redis.xinfo_groups(self.stream)
        except ResponseError:  # no stream: nothing queued
            return 0, 0, ""
        depth = await self.depth()
        for group in groups:
            if str(group.get("name")) == keys.JOB_GROUP:
                in_flight = int(group.get("pending") or 0)
                return max(0, depth - in_flight), in_flight, str(group.get("last-delivered-id") or "0-0")
        return depth, 0, ""


@dataclasses.dataclass(frozen=True)
class QueueStats:
    waiting: int
    in_flight: int
    oldest_waiting_age_s: float


def unfinished_by_state(unfinished: int, queue: QueueStats) -> dict[str, int]:
    """Unfinished tasks (the pending index's size) split into processing (their job is claimed) and queued.

    Two counters instead of reading every task's state, so a sample costs the same at any backlog.
    """
    processing = min(unfinished, queue.in_flight)
    return {"queued": unfinished - processing, "processing": processing}


def _job(message_id: str, fields: dict[str, str], deliveries: int) -> Job:
    return Job(message_id, fields["task_id"], deliveries, fields.get("kind", "video"))
