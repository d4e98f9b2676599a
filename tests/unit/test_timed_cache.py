"""The edge's timed caches: one load at a time, and reads that never wait for a refresh once a value exists."""

from __future__ import annotations

import asyncio

import pytest

from serve_app.services import TimedCache


class Source:
    """Answers 1, 2, 3... after ``delay_s``; ``fail`` makes the next loads raise."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s, self.calls, self.fail = delay_s, 0, False

    async def __call__(self) -> int:
        self.calls += 1
        await asyncio.sleep(self.delay_s)
        if self.fail:
            raise RuntimeError("report unavailable")
        return self.calls


async def test_concurrent_first_reads_share_one_load() -> None:
    source, cache = Source(0.05), TimedCache(60)
    assert await asyncio.gather(*(cache.get(source) for _ in range(5))) == [1] * 5
    assert source.calls == 1


async def test_an_expired_value_is_reloaded_before_answering_by_default() -> None:
    source, cache = Source(), TimedCache(0.01)
    assert await cache.get(source) == 1
    await asyncio.sleep(0.02)
    assert await cache.get(source) == 2


async def test_stale_value_is_answered_at_once_while_one_refresh_runs() -> None:
    source, cache = Source(0.2), TimedCache(0.01, stale_while_refreshing=True)
    assert await cache.get(source) == 1  # the first load is waited for
    await asyncio.sleep(0.02)
    started = asyncio.get_running_loop().time()
    assert await asyncio.gather(*(cache.get(source) for _ in range(5))) == [1] * 5
    assert asyncio.get_running_loop().time() - started < 0.1  # nobody waited for the 0.2 s refresh
    await asyncio.sleep(0.3)
    assert source.calls == 2 and await cache.get(source) == 2


async def test_a_failed_refresh_keeps_the_last_value_but_a_failed_first_load_raises() -> None:
    source, cache = Source(), TimedCache(0.01, stale_while_refreshing=True)
    assert await cache.get(source) == 1
    source.fail = True
    await asyncio.sleep(0.02)
    assert await cache.get(source) == 1
    await asyncio.sleep(0.02)
    assert await cache.get(source) == 1
    empty = TimedCache(60, stale_while_refreshing=True)
    with pytest.raises(RuntimeError):
        await empty.get(source)
