"""Task records and the job stream on a real redis-server."""

from __future__ import annotations

import asyncio
import time

import pytest
from redis.asyncio import Redis
from redis.exceptions import ResponseError

from core import keys
from core.redis import connect
from core.tasks import InvalidTransition, JobQueue, TaskState, TaskStore
from tests.support.services import free_port, redis_server


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


async def test_create_enqueues_the_job_in_the_same_step(redis_client: Redis) -> None:
    store, queue = TaskStore(redis_client), JobQueue(redis_client)
    await queue.ensure_group()
    task = await store.create("acct", {"target_lang": "es"}, kind="video")
    job = await queue.claim("w", block_ms=100)
    assert job is not None and (job.task_id, job.kind, job.message_id) == (task.task_id, "video", task.job_id)
    assert await redis_client.zscore(keys.pending_tasks(), task.task_id) == pytest.approx(task.created_at)


async def test_a_failed_submission_leaves_neither_task_nor_job(redis_client: Redis) -> None:
    """The script either writes everything or nothing: make XADD fail inside it (wrong type at the stream key)."""
    await redis_client.set(keys.job_stream(), "not a stream")
    with pytest.raises(ResponseError):
        await TaskStore(redis_client).create("acct", {"target_lang": "es"})
    assert [k async for k in redis_client.scan_iter(match="mt:task:*")] == []
    assert await redis_client.zcard(keys.pending_tasks()) == 0


async def test_lost_consumer_group_is_recreated(redis_client: Redis) -> None:
    store, queue = TaskStore(redis_client), JobQueue(redis_client)
    await queue.ensure_group()
    await redis_client.flushdb()  # FLUSHALL, a failover to an empty replica or eviction: the group is gone
    task = await store.create("acct", {})  # XADD recreates the stream without its group
    job = await queue.claim("w", block_ms=100)  # NOGROUP → group recreated from the first entry
    assert job is not None and job.task_id == task.task_id


async def test_reclaim_follows_the_cursor_past_live_jobs(redis_client: Redis) -> None:
    """A dead worker's job behind 10+ jobs that live workers keep alive is still taken over."""
    # Idle time long enough that 25 heartbeats on a loaded machine finish well within it (at 300 ms the first
    # live jobs could be idle again before the rescuer looked, and be taken instead).
    queue = JobQueue(redis_client, min_idle_ms=1500)
    await queue.ensure_group()
    for i in range(25):
        await queue.enqueue(f"live-{i}")
    live = [await queue.claim("live-worker", block_ms=50) for _ in range(25)]
    await queue.enqueue("orphaned")
    dead = await queue.claim("dead-worker", block_ms=50)
    assert dead is not None and dead.task_id == "orphaned"
    time.sleep(1.55)
    for job in live:
        assert job is not None
        await queue.heartbeat("live-worker", job)
    taken = await queue.claim("rescuer", block_ms=50)
    assert taken is not None and taken.task_id == "orphaned" and taken.deliveries == 2


async def test_orphaned_tasks_get_a_new_job(redis_client: Redis) -> None:
    store, queue = TaskStore(redis_client), JobQueue(redis_client)
    await queue.ensure_group()
    kept = await store.create("acct", {})
    lost = await store.create("acct", {})
    done = await store.create("acct", {})
    await store.transition(done.task_id, TaskState.PROCESSING)
    await store.transition(done.task_id, TaskState.COMPLETED, result={})
    await redis_client.xdel(keys.job_stream(), done.job_id)  # acknowledged
    await redis_client.xdel(keys.job_stream(), lost.job_id)  # the stream lost this entry (eviction, failover)
    assert await store.requeue_orphans(older_than_s=0) == [lost.task_id]
    assert await store.requeue_orphans(older_than_s=0) == []  # idempotent: its new job exists now
    claimed = {(await queue.claim("w", block_ms=50)).task_id for _ in range(2)}  # type: ignore[union-attr]
    assert claimed == {kept.task_id, lost.task_id}
    assert await queue.claim("w", block_ms=50) is None
    assert await store.pending_count() == 2  # the completed task left the pending index


async def test_progress_is_best_effort(redis_client: Redis) -> None:
    store = TaskStore(redis_client)
    task = await store.create("a", {})
    await store.transition(task.task_id, TaskState.PROCESSING)
    assert await store.report(task.task_id, stage="recognizing", progress=30) is True
    down = TaskStore(connect(f"redis://127.0.0.1:{free_port()}/0", retries=1))
    assert await down.report(task.task_id, stage="translating", progress=60) is False  # no exception
    await store.transition(task.task_id, TaskState.COMPLETED, result={})
    assert await store.report(task.task_id, progress=99) is False  # finished: nothing to report


async def test_terminal_state_waits_out_a_redis_restart(tmp_path) -> None:
    with redis_server(tmp_path, persistent=True) as server:
        store = TaskStore(connect(server.url, retries=1), settle_backoff_s=(0.1, 0.5))
        task = await store.create("a", {})
        await store.transition(task.task_id, TaskState.PROCESSING)
        server.stop()
        settling = asyncio.create_task(store.settle(task.task_id, TaskState.COMPLETED, result={"ok": 1}))
        await asyncio.sleep(1.5)
        assert not settling.done()  # still trying while Redis is down
        server.start()
        done = await asyncio.wait_for(settling, 10)
        assert done.status is TaskState.COMPLETED
        fresh = await TaskStore(connect(server.url)).get(task.task_id)
        assert fresh is not None and fresh.status is TaskState.COMPLETED and fresh.result == {"ok": 1}


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
