"""Pending-task and output-storage caps of task submission, against a real redis-server."""

from __future__ import annotations

import asyncio
import time

import pytest
from redis.asyncio import Redis

from core import caps, keys
from core.errors import ApiError, ErrorKind
from core.tasks import TaskState, TaskStore


def limits(**overrides: int | None) -> dict[str, int | None]:
    return {**caps.DEFAULTS, **overrides}


async def test_concurrent_submissions_stop_at_the_pending_cap_and_finishing_frees_a_place(redis_client: Redis) -> None:
    store = TaskStore(redis_client)
    cap = limits(pending_tasks=3)
    results = await asyncio.gather(*(store.create("acct", {}, limits=cap) for _ in range(20)), return_exceptions=True)
    tasks = [r for r in results if not isinstance(r, BaseException)]
    errors = [r for r in results if isinstance(r, BaseException)]
    assert len(tasks) == 3 and len(errors) == 17
    assert all(isinstance(e, ApiError) and e.kind is ErrorKind.QUOTA_EXCEEDED for e in errors)
    assert str(errors[0]).startswith(
        "Pending task cap reached: the account has 3 video tasks queued or processing, its cap (pending_tasks=3)."
    )
    assert await redis_client.xlen(keys.job_stream()) == 3  # a refused task leaves no job behind
    with pytest.raises(ApiError):
        await store.check_caps("acct", "video", cap)
    await store.create("other", {}, limits=cap)  # per account
    await store.create("acct", {}, kind="voice", limits=cap)  # per kind

    await store.transition(tasks[0].task_id, TaskState.PROCESSING)
    await store.settle(tasks[0].task_id, TaskState.FAILED, error={"code": "X", "message": "m"})
    await store.check_caps("acct", "video", cap)
    await store.create("acct", {}, limits=cap)
    with pytest.raises(ApiError):
        await store.create("acct", {}, limits=cap)
    await store.create("acct", {})  # internal callers give no caps


async def test_a_task_past_its_expiry_no_longer_holds_a_place(redis_client: Redis) -> None:
    store = TaskStore(redis_client, pending_expiry_s=1)
    cap = limits(pending_tasks=1)
    await store.create("acct", {}, limits=cap)
    with pytest.raises(ApiError):
        await store.create("acct", {}, limits=cap)
    await asyncio.sleep(1.1)  # never read, so never moved to expired: its age alone frees the place
    await store.check_caps("acct", "video", cap)
    await store.create("acct", {}, limits=cap)
    assert await redis_client.ttl(keys.account_pending_tasks("acct", "video")) in (0, 1)


async def test_stored_outputs_refuse_new_tasks_until_they_are_deleted(redis_client: Redis) -> None:
    store = TaskStore(redis_client)
    cap = limits(output_bytes=1000)
    await store.record_output("acct", "t1/a.srt", 600)
    await store.create("acct", {}, limits=cap)  # 600 of 1000: still room
    await store.record_output("acct", "t1/b.mp4", 400)
    await store.record_output("acct", "t1/a.srt", 600)  # published again by a rerun: counted once
    assert await store.stored_output_bytes("acct") == 1000
    for attempt in (store.create("acct", {}, limits=cap), store.check_caps("acct", "video", cap)):
        with pytest.raises(ApiError) as err:
            await attempt
        assert err.value.kind is ErrorKind.QUOTA_EXCEEDED
        assert str(err.value).startswith(
            "Output storage cap reached: the account holds 1000 bytes of stored outputs, its cap (output_bytes=1000)."
        )
    await store.create("acct", {}, limits=limits(output_bytes=None))

    old = time.time() - keys.OUTPUT_RETENTION_S - 1  # made long enough ago that housekeeping deleted it
    await store.record_output("acct", "t1/b.mp4", 400, made_at=old)
    assert await store.stored_output_bytes("acct") == 600
    await store.create("acct", {}, limits=cap)
    ledger_keys = [k async for k in redis_client.scan_iter(match=keys.account_output_ledger("acct") + ":*")]
    assert len(ledger_keys) == 3
    for key in ledger_keys:  # the ledger expires with its last entry
        assert keys.OUTPUT_RETENTION_S - 60 < await redis_client.ttl(key) <= keys.OUTPUT_RETENTION_S + 2
