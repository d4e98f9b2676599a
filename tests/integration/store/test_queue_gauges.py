"""What the worker's gauges read from Redis: jobs waiting / in flight, the oldest waiting job's age,
unfinished tasks by state."""

from __future__ import annotations

import time

from redis.asyncio import Redis

from core.tasks import JobQueue, TaskState, TaskStore
from core.tasks.queue import unfinished_by_state


async def test_queue_stats_follow_claims_and_acks(redis_client: Redis) -> None:
    queue, store = JobQueue(redis_client), TaskStore(redis_client)
    await queue.ensure_group()
    assert (await queue.stats()).waiting == 0
    tasks = [await store.create("acct_q", {"n": i}) for i in range(3)]
    stats = await queue.stats(now=time.time() + 30)
    assert (stats.waiting, stats.in_flight) == (3, 0)
    assert 29 <= stats.oldest_waiting_age_s <= 60  # the first job's id carries its enqueue time
    first = await queue.claim("w1", block_ms=10)
    assert first is not None and first.task_id == tasks[0].task_id
    stats = await queue.stats(now=time.time() + 30)
    assert (stats.waiting, stats.in_flight) == (2, 1)
    assert 29 <= stats.oldest_waiting_age_s <= 60
    await queue.ack(first.message_id)
    for _ in range(2):
        job = await queue.claim("w1", block_ms=10)
        assert job is not None
    stats = await queue.stats()
    assert (stats.waiting, stats.in_flight, stats.oldest_waiting_age_s) == (0, 2, 0.0)


async def test_unfinished_tasks_by_state(redis_client: Redis) -> None:
    store, queue = TaskStore(redis_client), JobQueue(redis_client)
    await queue.ensure_group()
    created = [await store.create("acct_s", {"n": i}) for i in range(4)]
    first = await queue.claim("w1", block_ms=10)
    assert first is not None
    await store.transition(first.task_id, TaskState.PROCESSING)
    second = await queue.claim("w1", block_ms=10)
    assert second is not None
    await store.transition(second.task_id, TaskState.PROCESSING)
    await store.settle(second.task_id, TaskState.COMPLETED, result={})
    await queue.ack(second.message_id)
    counts = unfinished_by_state(await store.pending_count(), await queue.stats())
    assert counts == {"queued": 2, "processing": 1}
    assert sum(counts.values()) == len(created) - 1
