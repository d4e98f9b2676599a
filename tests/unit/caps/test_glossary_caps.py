"""Glossary caps and the paged listing against a real redis-server: concurrent writes never pass a cap."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

import pytest
from redis.asyncio import Redis

from core import caps, keys
from core.errors import ApiError, ErrorKind
from core.glossaries import GlossaryStore

DATA = {"name": "terms", "source_lang": "en", "target_lang": "es", "entries": [], "case_sensitive": False}


def entries(count: int, width: int = 10) -> list[dict[str, str]]:
    return [{"source": f"s{i:0{width}d}", "target": f"t{i:0{width}d}"} for i in range(count)]


def limits(**overrides: int | None) -> dict[str, int | None]:
    return {**caps.DEFAULTS, **overrides}


async def stored_bytes(redis: Redis, account: str) -> int:
    ids = await redis.zrange(keys.account_glossary_index(account), 0, -1)
    raws = await redis.mget([keys.glossary(gid) for gid in ids]) if ids else []
    return sum(len(raw) for raw in raws if raw)


def refused(results: Sequence[object]) -> list[ApiError]:
    errors = [r for r in results if isinstance(r, BaseException)]
    assert all(isinstance(e, ApiError) and e.kind is ErrorKind.QUOTA_EXCEEDED for e in errors), errors
    return errors  # type: ignore[return-value]


async def test_concurrent_creates_stop_at_the_glossary_count_cap(redis_client: Redis) -> None:
    store = GlossaryStore(redis_client)
    cap = limits(glossaries=5)
    results = await asyncio.gather(
        *(store.create("acct", {**DATA, "name": f"g{i}"}, cap) for i in range(30)), return_exceptions=True
    )
    errors = refused(results)
    assert len(errors) == 25
    assert str(errors[0]) == (
        "Glossary cap reached: the account holds 5 glossaries, its cap (glossaries=5). Delete a glossary first."
    )
    assert (await store.usage("acct"))[0] == 5
    assert len([k async for k in redis_client.scan_iter(match=keys.account_glossary_name("acct", "*"))]) == 5
    assert (await store.usage("other"))[0] == 0  # per account
    await store.create("other", DATA, cap)


async def test_concurrent_creates_stop_at_the_account_byte_cap(redis_client: Redis) -> None:
    store = GlossaryStore(redis_client)
    one = len(json.dumps({**DATA, "entries": entries(100)}))  # about the size of each record
    cap = limits(glossary_total_bytes=one * 4)
    results = await asyncio.gather(
        *(store.create("acct", {**DATA, "name": f"g{i}", "entries": entries(100)}, cap) for i in range(12)),
        return_exceptions=True,
    )
    errors = refused(results)
    assert 0 < len(errors) < 12
    assert "(glossary_total_bytes=" in str(errors[0]) and "and this request adds" in str(errors[0])
    count, used = await store.usage("acct")
    assert count == 12 - len(errors) and used == await stored_bytes(redis_client, "acct") <= one * 4


async def test_a_record_over_its_entry_or_byte_cap_is_refused_before_anything_is_written(redis_client: Redis) -> None:
    store = GlossaryStore(redis_client)
    with pytest.raises(ApiError) as err:
        await store.create("acct", {**DATA, "entries": entries(11)}, limits(glossary_entries=10))
    assert err.value.kind is ErrorKind.QUOTA_EXCEEDED
    assert str(err.value).startswith(
        "Glossary entry cap exceeded: the glossary has 11 entries, over its cap (glossary_entries=10)."
    )
    with pytest.raises(ApiError) as err:
        await store.create("acct", {**DATA, "entries": entries(50)}, limits(glossary_bytes=1000))
    assert "(glossary_bytes=1000)" in str(err.value)
    assert await store.usage("acct") == (0, 0)
    assert await redis_client.exists(keys.account_glossary_name("acct", "terms")) == 0
    unlimited = await store.create("acct", {**DATA, "entries": entries(60)}, limits(glossary_bytes=None))
    assert len(unlimited["entries"]) == 60


async def test_updates_and_deletes_keep_the_byte_count_and_respect_the_cap(redis_client: Redis) -> None:
    store = GlossaryStore(redis_client)
    small = await store.create("acct", {**DATA, "entries": entries(5)})
    cap = limits(glossary_total_bytes=(await store.usage("acct"))[1] + 200)
    with pytest.raises(ApiError) as err:
        await store.update(small["glossary_id"], {"entries": entries(50)}, cap)
    assert err.value.kind is ErrorKind.QUOTA_EXCEEDED and "(glossary_total_bytes=" in str(err.value)
    assert len((await store.get(small["glossary_id"]))["entries"]) == 5  # type: ignore[index]
    await store.update(small["glossary_id"], {"entries": entries(1), "name": "renamed"}, cap)  # shrinking always fits
    assert (await store.usage("acct"))[1] == await stored_bytes(redis_client, "acct")
    await store.update(small["glossary_id"], {"entries": entries(6)}, cap)
    assert (await store.usage("acct"))[1] == await stored_bytes(redis_client, "acct")
    assert await store.delete(small["glossary_id"]) is True
    assert await store.usage("acct") == (0, 0)
    assert await store.create("acct", DATA, limits(glossaries=1))  # the deleted one freed its place


async def test_concurrent_growth_updates_cannot_pass_the_byte_cap(redis_client: Redis) -> None:
    store = GlossaryStore(redis_client)
    records = [await store.create("acct", {**DATA, "name": f"g{i}"}) for i in range(6)]
    base = (await store.usage("acct"))[1]
    growth = len(json.dumps(entries(40))) - 2  # what 40 entries add to a record
    cap = limits(glossary_total_bytes=base + growth * 3 + growth // 2)
    results = await asyncio.gather(
        *(store.update(r["glossary_id"], {"entries": entries(40)}, cap) for r in records), return_exceptions=True
    )
    assert len(refused(results)) == 3
    assert (await store.usage("acct"))[1] == await stored_bytes(redis_client, "acct") <= base + growth * 3 + growth // 2


async def test_listing_pages_in_creation_order_and_reads_only_the_page(redis_client: Redis) -> None:
    store = GlossaryStore(redis_client)
    ids = [(await store.create("acct", {**DATA, "name": f"g{i}"}))["glossary_id"] for i in range(7)]
    await redis_client.set(keys.glossary(ids[6]), "not json")  # never read unless its page is
    first = await store.page("acct", limit=3)
    assert [r["glossary_id"] for r in first.records] == ids[:3] and first.total == 7 and first.next_cursor
    second = await store.page("acct", limit=3, cursor=first.next_cursor)
    assert [r["glossary_id"] for r in second.records] == ids[3:6] and second.next_cursor
    with pytest.raises(json.JSONDecodeError):
        await store.page("acct", limit=3, cursor=second.next_cursor)
    await redis_client.set(keys.glossary(ids[6]), json.dumps({"glossary_id": ids[6]}))
    last = await store.page("acct", limit=3, cursor=second.next_cursor)
    assert [r["glossary_id"] for r in last.records] == ids[6:] and last.next_cursor is None
    assert (await store.page("acct", limit=7)).next_cursor is None
    with pytest.raises(ValueError, match="cursor"):
        await store.page("acct", cursor="bm90IG9uZSBvZiBvdXJz")


async def test_glossaries_created_at_the_same_instant_are_each_listed_once(redis_client: Redis) -> None:
    store = GlossaryStore(redis_client)
    ids = [(await store.create("acct", {**DATA, "name": f"g{i}"}))["glossary_id"] for i in range(5)]
    await redis_client.zadd(keys.account_glossary_index("acct"), {gid: 1000.5 for gid in ids})
    seen, cursor = [], None
    while True:
        page = await store.page("acct", limit=2, cursor=cursor)
        seen += [r["glossary_id"] for r in page.records]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == sorted(ids)


async def test_an_account_written_before_the_index_is_moved_into_it(redis_client: Redis) -> None:
    """Legacy layout: a plain set of ids and records with pretty-printed JSON; the first touch counts them."""
    legacy = []
    for i in range(3):
        gid = f"gl_legacy{i}"
        record = {**DATA, "name": f"old{i}", "glossary_id": gid, "account_id": "acct", "created": 100.0 + i, "updated": 100.0}
        await redis_client.set(keys.glossary(gid), json.dumps(record))
        await redis_client.set(keys.account_glossary_name("acct", f"old{i}"), gid)
        await redis_client.sadd(keys.account_glossaries("acct"), gid)
        legacy.append(gid)
    store = GlossaryStore(redis_client)
    page = await store.page("acct", limit=10)
    assert [r["glossary_id"] for r in page.records] == legacy and page.total == 3
    assert await redis_client.exists(keys.account_glossaries("acct")) == 0
    assert (await store.usage("acct"))[1] == await stored_bytes(redis_client, "acct")
    with pytest.raises(ApiError) as err:
        await store.create("acct", DATA, limits(glossaries=3))
    assert err.value.kind is ErrorKind.QUOTA_EXCEEDED
    assert await store.delete(legacy[0]) is True
    assert (await store.usage("acct"))[0] == 2
