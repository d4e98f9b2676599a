"""Per-account concurrent stream slots in Redis: the limit, leases, renewal, release under cancellation."""

from __future__ import annotations

import asyncio
import time

import pytest
from redis.asyncio import Redis

from core import caps, keys
from core.accounts import Account
from core.errors import ApiError, ErrorKind
from serve_app.stream_slots import RETRY_AFTER_S, StreamSlots, tts_stream_limit


def _account(name: str = "a", **fields: object) -> Account:
    return Account(id=f"acct_{name}", name=name, created_at=time.time(), **fields)  # type: ignore[arg-type]


async def test_limit_refuses_with_rate_limited_and_retry_after(redis_client: Redis) -> None:
    slots = StreamSlots(redis_client)
    account, other = _account("a"), _account("b")
    held = [await slots.acquire(account, 2) for _ in range(2)]
    with pytest.raises(ApiError) as refused:
        await slots.acquire(account, 2)
    assert refused.value.kind is ErrorKind.RATE_LIMITED
    assert refused.value.headers["Retry-After"] == str(RETRY_AFTER_S)
    assert "At most 2 concurrent TTS streams" in refused.value.message
    other_slot = await slots.acquire(other, 2)  # another account's slots are its own
    await held[0].release()
    again = await slots.acquire(account, 2)
    assert await slots.open_count(account.id) == 2
    for slot in (held[1], again, other_slot):
        await slot.release()
    assert await slots.open_count(account.id) == 0
    assert not await redis_client.exists(keys.account_streams(account.id, "tts"))


async def test_dead_holder_frees_its_slot_after_one_lease(redis_client: Redis) -> None:
    slots = StreamSlots(redis_client, lease_s=1, renew_every_s=0.3)
    account = _account()
    orphan = await slots.acquire(account, 1)
    orphan._renewer.cancel()  # the replica holding it died: nobody renews or releases
    with pytest.raises(ApiError):
        await slots.acquire(account, 1)
    await asyncio.sleep(1.2)
    taken = await slots.acquire(account, 1)  # the expired lease is trimmed by the acquire itself
    assert await redis_client.zcard(keys.account_streams(account.id, "tts")) == 1
    assert 0 < await redis_client.ttl(keys.account_streams(account.id, "tts")) <= 1
    await taken.release()


async def test_live_stream_keeps_its_slot_past_the_lease(redis_client: Redis) -> None:
    slots = StreamSlots(redis_client, lease_s=1, renew_every_s=0.3)
    account = _account()
    live = await slots.acquire(account, 1)
    await asyncio.sleep(2.0)
    with pytest.raises(ApiError):
        await slots.acquire(account, 1)
    await live.release()
    await live.release()  # a second release is harmless
    await (await slots.acquire(account, 1)).release()


async def test_release_reaches_redis_when_the_releasing_task_is_cancelled(redis_client: Redis) -> None:
    slots = StreamSlots(redis_client)
    account = _account()
    slot = await slots.acquire(account, 1)

    async def release_then_linger() -> None:
        await slot.release()
        await asyncio.sleep(10)

    task = asyncio.create_task(release_then_linger())
    await asyncio.sleep(0)  # the removal has been sent off
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(50):
        if not await slots.open_count(account.id):
            break
        await asyncio.sleep(0.02)
    assert await slots.open_count(account.id) == 0


def test_limit_is_the_accounts_cap() -> None:
    assert tts_stream_limit(_account()) == caps.DEFAULTS[caps.TTS_STREAMS] == 4
    assert tts_stream_limit(_account(caps={caps.TTS_STREAMS: 1})) == 1
    assert tts_stream_limit(_account(caps={caps.TTS_STREAMS: caps.UNLIMITED})) is None


async def test_unlimited_account_is_never_refused(redis_client: Redis) -> None:
    slots = StreamSlots(redis_client)
    account = _account()
    held = [await slots.acquire(account, None) for _ in range(20)]
    assert await slots.open_count(account.id) == 20
    for slot in held:
        await slot.release()
