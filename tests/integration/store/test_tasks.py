"""Task records and the job stream on a real redis-server."""

from __future__ import annotations

import time

import pytest
from redis.asyncio import Redis

from serve_app import keys
from serve_app.tasks import InvalidTransition, JobQueue, TaskState, TaskStore


async def test_create_sets_ttl_and_queued_record(redis_client: Redis) -> None:
    store = TaskStore(redis_client)
    task = await store.create("acct_1", {"target_lang": "es"}, request_id="rid", estimated_seconds=30)
    ttl = await redis_client.ttl(keys.task(task.task_id))
    assert 0 < ttl <= keys.TASK_RECORD_TTL_S
    public = (await store.get(task.task_id)).public()  # type: ignore[union-attr]
    assert public["status"] == "queued" and public["progress"] == 0 and public["estimated_seconds"] == 30
    assert public["created_at"].endswith("Z")
    assert "result" not in public and "stage" not in public


async def test_lifecycle_and_monotonic_progress(redis_client: Redis) -> None:
    store = TaskStore(redis_client)
    task = await store.create("a", {})
    await store.transition(task.task_id, TaskState.PROCESSING, stage="recognizing", progress=40)
    after = await store.transition(task.task_id, TaskState.PROCESSING, stage="translating", progress=20)
    assert after.progress == 40  # never goes back
    done = await store.transition(task.task_id, TaskState.COMPLETED, result={"subtitle_url": "u"})
    public = done.public()
    assert public["progress"] == 100 and public["result"] == {"subtitle_url": "u"} and "completed_at" in public
    with pytest.raises(InvalidTransition):
        await store.transition(task.task_id, TaskState.PROCESSING)


async def test_pending_task_expires_after_limit(redis_client: Redis) -> None:
    store = TaskStore(redis_client, pending_expiry_s=1)
    task = await store.create("a", {})
    assert (await store.get(task.task_id)).status is TaskState.QUEUED  # type: ignore[union-attr]
    time.sleep(1.2)
    expired = await store.get(task.task_id)
    assert expired is not None and expired.status is TaskState.EXPIRED
    assert expired.public()["error"]["code"] == "TASK_EXPIRED"


async def test_completed_task_never_expires(redis_client: Redis) -> None:
    store = TaskStore(redis_client, pending_expiry_s=1)
    task = await store.create("a", {})
    await store.transition(task.task_id, TaskState.PROCESSING)
    await store.transition(task.task_id, TaskState.COMPLETED, result={})
    time.sleep(1.2)
    assert (await store.get(task.task_id)).status is TaskState.COMPLETED  # type: ignore[union-attr]


async def test_job_of_dead_worker_is_claimed_by_another(redis_client: Redis) -> None:
    queue = JobQueue(redis_client, min_idle_ms=200)
    await queue.ensure_group()
    await queue.ensure_group()  # idempotent
    await queue.enqueue("task-1")
    first = await queue.claim("worker-a", block_ms=100)
    assert first is not None and first.task_id == "task-1" and first.deliveries == 1
    assert await queue.claim("worker-b", block_ms=50) is None  # still owned by a
    time.sleep(0.3)  # worker-a dies: no heartbeat, no ack
    taken = await queue.claim("worker-b", block_ms=50)
    assert taken is not None and taken.task_id == "task-1" and taken.deliveries == 2
    await queue.ack(taken.message_id)
    time.sleep(0.3)
    assert await queue.claim("worker-c", block_ms=50) is None


async def test_heartbeat_keeps_the_job(redis_client: Redis) -> None:
    queue = JobQueue(redis_client, min_idle_ms=300)
    await queue.ensure_group()
    await queue.enqueue("task-2")
    job = await queue.claim("worker-a", block_ms=100)
    assert job is not None
    for _ in range(3):
        time.sleep(0.15)
        await queue.heartbeat("worker-a", job)
    assert await queue.claim("worker-b", block_ms=50) is None
