"""Translation-memory caps against a real redis-server: concurrent writes never pass a cap, refusals write nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from redis.asyncio import Redis

from core import caps
from core.errors import ApiError, ErrorKind
from core.memories import MemoryStore

DATA = {"name": "tm", "source_lang": "en", "target_lang": "es"}


def pairs(count: int, start: int = 0, width: int = 10) -> list[tuple[str, str]]:
    return [(f"s{i:0{width}d}", f"t{i:0{width}d}") for i in range(start, start + count)]


def limits(**overrides: int | None) -> dict[str, int | None]:
    return {**caps.DEFAULTS, **overrides}


def refused(results: Sequence[object]) -> list[ApiError]:
    errors = [r for r in results if isinstance(r, BaseException)]
    assert all(isinstance(e, ApiError) and e.kind is ErrorKind.QUOTA_EXCEEDED for e in errors), errors
    return errors  # type: ignore[return-value]


async def test_concurrent_creates_stop_at_the_memory_count_cap(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    results = await asyncio.gather(
        *(store.create("acct", {**DATA, "name": f"m{i}"}, limits(memories=4)) for i in range(20)), return_exceptions=True
    )
    errors = refused(results)
    assert len(errors) == 16 and (await store.usage("acct"))[0] == 4
    assert str(errors[0]) == (
        "Translation memory cap reached: the account holds 4 translation memories, its cap (memories=4). "
        "Delete a translation memory first."
    )


async def test_concurrent_additions_stop_at_the_entry_cap(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    mid = (await store.create("acct", {**DATA, "entries": [{"source": "a", "target": "b"}]}))["memory_id"]
    cap = limits(memory_entries=101)
    results = await asyncio.gather(*(store.put_entries(mid, pairs(10, 10 * i), cap) for i in range(20)), return_exceptions=True)
    errors = refused(results)
    assert len(errors) == 10
    assert str(errors[0]).startswith(
        "Translation memory entry cap exceeded: the memory has 101 entries and this request adds 10, "
        "over its cap (memory_entries=101)."
    )
    record = await store.get(mid)
    assert record is not None and record["entry_count"] == 101 == len(await store.pairs(mid))
    assert record["revision"] == 11
    assert await store.put_entries(mid, [("a", "c")], cap) == (0, 1)  # replacing adds no entry


async def test_the_account_byte_cap_holds_across_memories_written_at_once(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    ids = [(await store.create("acct", {**DATA, "name": f"m{i}"}))["memory_id"] for i in range(4)]
    _, empty = await store.usage("acct")
    one = sum(len(s) + len(f'["{s}","{t}"]') for s, t in pairs(50))  # each entry: its field and its JSON value
    cap = limits(memory_total_bytes=empty + one * 5)
    results = await asyncio.gather(
        *(store.put_entries(ids[i % 4], pairs(50, 50 * i), cap) for i in range(12)), return_exceptions=True
    )
    errors = refused(results)
    assert len(errors) == 7 and "(memory_total_bytes=" in str(errors[0]) and "and this request adds" in str(errors[0])
    _, used = await store.usage("acct")
    records = [await store.get(mid) for mid in ids]
    assert used == sum(r["bytes"] for r in records if r) <= empty + one * 5


async def test_one_memory_over_its_size_is_refused_and_nothing_is_written(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    with pytest.raises(ApiError) as err:
        await store.create(
            "acct", {**DATA, "entries": [{"source": s, "target": t} for s, t in pairs(11)]}, limits(memory_entries=10)
        )
    assert str(err.value).startswith("Translation memory entry cap exceeded: the memory has 11 entries, over its cap")
    with pytest.raises(ApiError) as err:
        await store.create(
            "acct", {**DATA, "entries": [{"source": s, "target": t} for s, t in pairs(100)]}, limits(memory_bytes=1000)
        )
    assert "(memory_bytes=1000)" in str(err.value)
    assert await store.usage("acct") == (0, 0)

    record = await store.create("acct", {**DATA, "entries": [{"source": "a", "target": "b"}]}, limits(memory_bytes=1000))
    mid = record["memory_id"]
    with pytest.raises(ApiError) as err:
        await store.put_entries(mid, pairs(100), limits(memory_bytes=1000))
    assert "Translation memory size cap exceeded" in str(err.value) and "and this request adds" in str(err.value)
    with pytest.raises(ApiError) as err:
        await store.replace_entries(mid, pairs(100), limits(memory_bytes=1000))
    assert "(memory_bytes=1000)" in str(err.value)
    with pytest.raises(ApiError):
        await store.replace_entries(mid, pairs(11), limits(memory_entries=10))
    assert await store.get(mid) == record and await store.pairs(mid) == [("a", "b")]
    assert await store.usage("acct") == (1, record["bytes"])
    assert await store.put_entries(mid, pairs(5), limits(memory_bytes=None, memory_total_bytes=None)) == (5, 0)


def test_the_caps_are_named_and_overridable() -> None:
    assert caps.DEFAULTS[caps.MEMORIES] == 20 and caps.DEFAULTS[caps.MEMORY_ENTRIES] == 50_000
    assert caps.DEFAULTS[caps.MEMORY_BYTES] == 16 * caps.MiB and caps.DEFAULTS[caps.MEMORY_TOTAL_BYTES] == 64 * caps.MiB
    assert caps.parse("memories=50") == ("memories", 50)
    assert caps.parse("memory_total_bytes=unlimited") == ("memory_total_bytes", caps.UNLIMITED)
