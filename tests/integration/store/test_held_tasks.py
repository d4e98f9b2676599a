"""Held tasks on a real redis-server: stored and counted without a job until released, never swept into a job."""

from __future__ import annotations

from redis.asyncio import Redis

from core import keys
from core.tasks import JobQueue, TaskState, TaskStore


async def test_a_held_task_is_queued_and_counted_but_has_no_job(redis_client: Redis) -> None:
    store, queue = TaskStore(redis_client), JobQueue(redis_client)
    await queue.ensure_group()
    held = await store.create("acct", {"target_lang": "fr"}, held=True, task_id="h" * 32)
    assert held.task_id == "h" * 32 and held.job_id is None
    record = await store.get(held.task_id)
    assert record is not None and record.status is TaskState.QUEUED and record.job_id is None
    assert await redis_client.xlen(keys.job_stream()) == 0
    assert await redis_client.zscore(keys.pending_tasks(), held.task_id) is None
    assert await redis_client.zscore(keys.account_pending_tasks("acct", "video"), held.task_id) is not None  # caps count it
    assert await store.held_ids() == [held.task_id]
    assert await store.requeue_orphans(older_than_s=-1) == []  # the orphan sweep never gives it a job
    assert await queue.claim("w", block_ms=50) is None


async def test_release_gives_the_job_once(redis_client: Redis) -> None:
    store, queue = TaskStore(redis_client), JobQueue(redis_client)
    await queue.ensure_group()
    held = await store.create("acct", {}, held=True)
    assert await store.release(held.task_id) is True
    assert await store.release(held.task_id) is False  # released already
    job = await queue.claim("w", block_ms=100)
    assert job is not None and job.task_id == held.task_id
    record = await store.get(held.task_id)
    assert record is not None and record.job_id == job.message_id
    assert await redis_client.zscore(keys.pending_tasks(), held.task_id) is not None and await store.held_ids() == []


async def test_a_held_task_that_ends_is_never_released(redis_client: Redis) -> None:
    store, queue = TaskStore(redis_client), JobQueue(redis_client)
    await queue.ensure_group()
    held = await store.create("acct", {}, held=True)
    await store.settle(held.task_id, TaskState.FAILED, error={"code": "X", "message": "the parent failed"})
    assert await store.held_ids() == []
    assert await store.release(held.task_id) is False
    assert await queue.claim("w", block_ms=50) is None
    assert await store.release("0" * 32) is False  # none such
