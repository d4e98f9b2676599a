"""Translation memories in a real redis-server: entries by normalised source, revisions, byte counts, pages."""

from __future__ import annotations

import base64
import json

import pytest
from redis.asyncio import Redis

from core import keys
from core.errors import ApiError, ErrorKind
from core.memories import MemoryStore, normalise_source
from core.memory_cursors import MAX_CURSOR_CHARS

DATA = {"name": "quests", "source_lang": "en", "target_lang": "es", "description": "Quest log"}


async def stored_bytes(redis: Redis, memory_id: str) -> int:
    """What the byte counters should hold: the record's fixed part plus every entry's field and value."""
    meta = int(await redis.hget(keys.memory(memory_id), "meta_bytes"))
    entries = await redis.hgetall(keys.memory_entries(memory_id))
    return meta + sum(len(k.encode()) + len(v.encode()) for k, v in entries.items())


async def test_create_get_pairs_and_the_layout(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    entries = [{"source": "Open the door", "target": "Abre la puerta"}, {"source": "Quest log", "target": "Diario"}]
    record = await store.create("acct", {**DATA, "entries": [*entries, {"source": " open  THE door", "target": "Ábrela"}]})
    mid = record["memory_id"]
    assert mid.startswith("mem_") and record["entry_count"] == 2 and record["revision"] == 1
    assert await store.get(mid) == record
    assert set(record) == {
        "memory_id", "account_id", "name", "description", "source_lang", "target_lang",
        "entry_count", "revision", "bytes", "created_at", "updated_at",
    }  # fmt: skip
    assert record["created_at"].endswith("Z") and record["account_id"] == "acct"
    assert sorted(await store.pairs(mid)) == [("Quest log", "Diario"), ("open  THE door", "Ábrela")]  # the later wins, stripped
    raw = await redis_client.hget(keys.memory_entries(mid), "open the door")
    assert json.loads(raw) == ["open  THE door", "Ábrela"]
    assert record["bytes"] == await stored_bytes(redis_client, mid)
    assert await store.usage("acct") == (1, record["bytes"])
    assert await redis_client.ttl(keys.memory(mid)) == -1  # lives with the account
    assert await store.get("mem_missing") is None and await store.pairs("mem_missing") == []


async def test_put_replace_and_delete_entries_keep_counts_bytes_and_revision(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    mid = (await store.create("acct", {**DATA, "entries": [{"source": "Sword", "target": "Espada"}]}))["memory_id"]
    added, replaced = await store.put_entries(mid, [("sword ", "Espadón"), ("Shield", "Escudo"), ("Bow", "Arco")])
    assert (added, replaced) == (2, 1)
    record = await store.get(mid)
    assert record is not None and record["entry_count"] == 3 and record["revision"] == 2
    assert await store.put_entries(mid, [("Shield", "Escudo")]) == (0, 0)
    assert (await store.get(mid))["revision"] == 2  # nothing changed
    assert await store.delete_entries(mid, ["SHIELD", "unknown", "shield"]) == 1
    record = await store.get(mid)
    assert record["entry_count"] == 2 and record["revision"] == 3
    assert record["bytes"] == await stored_bytes(redis_client, mid) == (await store.usage("acct"))[1]
    assert await store.replace_entries(mid, [("Axe", "Hacha"), ("axe", "Hacha!")]) == 1
    record = await store.get(mid)
    assert await store.pairs(mid) == [("axe", "Hacha!")] and record["entry_count"] == 1 and record["revision"] == 4
    assert await redis_client.zrange(keys.memory_entry_order(mid), 0, -1) == ["axe"]
    assert record["bytes"] == await stored_bytes(redis_client, mid) == (await store.usage("acct"))[1]
    assert await store.replace_entries(mid, []) == 0
    assert (await store.get(mid))["entry_count"] == 0 and await store.pairs(mid) == []


async def test_names_are_unique_per_account_and_freed_by_delete(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    first = await store.create("acct", DATA)
    with pytest.raises(ApiError) as err:
        await store.create("acct", DATA)
    assert err.value.kind is ErrorKind.CONFLICT
    await store.create("other", DATA)  # another account's names are its own
    await store.put_entries(first["memory_id"], [("a", "b")])
    assert await store.delete(first["memory_id"]) is True
    assert await store.delete(first["memory_id"]) is False
    assert await store.usage("acct") == (0, 0)
    assert not [k async for k in redis_client.scan_iter(match=f"*{first['memory_id']}*")]
    await store.create("acct", DATA)
    for write in (store.put_entries(first["memory_id"], [("a", "b")]), store.delete_entries(first["memory_id"], ["a"])):
        with pytest.raises(ApiError) as err:
            await write
        assert err.value.kind is ErrorKind.NOT_FOUND


async def test_pages_of_memories_and_of_entries(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    ids = [(await store.create("acct", {**DATA, "name": f"m{i}"}))["memory_id"] for i in range(5)]
    seen, cursor = [], None
    while True:
        page = await store.page("acct", limit=2, cursor=cursor)
        assert page.total == 5 and len(page.records) <= 2
        seen += [r["memory_id"] for r in page.records]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == ids
    sources = [f"Line {i:03d}" for i in range(25)]
    await store.put_entries(ids[0], [(s, s.upper()) for s in reversed(sources)])
    got, cursor = [], None
    while True:
        entries = await store.entries_page(ids[0], limit=10, cursor=cursor)
        assert entries.total == 25 and len(entries.entries) <= 10
        got += entries.entries
        cursor = entries.next_cursor
        if cursor is None:
            break
    assert got == [(s, s.upper()) for s in sources]  # by normalised source
    with pytest.raises(ValueError):
        await store.entries_page(ids[0], cursor=base64.urlsafe_b64encode(b"Not Normalised").decode())
    with pytest.raises(ValueError):
        await store.page("acct", cursor="bm9wZQ")


def test_normalise_source_is_the_engines_rule() -> None:
    assert normalise_source("  Quest\u00a0 LOG\n") == "quest log"


async def test_writes_larger_than_one_batch_of_the_scripts(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    many = [{"source": f"Sentence {i}", "target": f"Frase {i}"} for i in range(1203)]
    mid = (await store.create("acct", {**DATA, "entries": many}))["memory_id"]
    assert len(await store.pairs(mid)) == 1203
    update = [(f"Sentence {i}", f"Frase {i}" if i % 2 else f"Oración {i}") for i in range(600, 1800)]
    assert await store.put_entries(mid, update) == (597, 302)  # 600..1202 there, the even ones changed
    assert await store.delete_entries(mid, [f"SENTENCE {i}" for i in range(0, 1800, 2)]) == 900
    record = await store.get(mid)
    assert record is not None and record["entry_count"] == 900 == len(await store.pairs(mid))
    assert await redis_client.zcard(keys.memory_entry_order(mid)) == 900
    assert record["bytes"] == await stored_bytes(redis_client, mid) == (await store.usage("acct"))[1]
    assert await store.replace_entries(mid, [(f"n{i}", "x") for i in range(1500)]) == 1500
    assert await redis_client.zcard(keys.memory_entry_order(mid)) == 1500
    assert (await store.get(mid))["bytes"] == await stored_bytes(redis_client, mid)


async def test_every_writer_gets_the_entry_rules(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    mid = (await store.create("acct", DATA))["memory_id"]
    assert await store.put_entries(mid, [("  Trimmed\r\n", " kept\ttab ")]) == (1, 0)
    assert await store.pairs(mid) == [("Trimmed", "kept\ttab")]
    for bad in [("", "x"), ("x", "y" * 2001), ("x", "bell\x07")]:
        with pytest.raises(ApiError) as err:
            await store.put_entries(mid, [("fine", "ok"), bad])
        assert err.value.kind is ErrorKind.INVALID_PARAMETER and "entries[1]." in err.value.message
    assert (await store.get(mid))["revision"] == 2


async def test_entry_cursors_stay_short_for_long_sources(redis_client: Redis) -> None:
    store = MemoryStore(redis_client)
    mid = (await store.create("acct", DATA))["memory_id"]
    shared = "é" * 80  # 160 bytes: every source below is cut to one prefix in its cursor
    sources = [f"{shared} line {i:02d}" for i in range(9)] + ["z short"]
    await store.put_entries(mid, [(s, "x") for s in sources])
    seen, cursor = [], None
    while True:
        page = await store.entries_page(mid, limit=2, cursor=cursor)
        seen += [s for s, _ in page.entries]
        cursor = page.next_cursor
        if cursor is None:
            break
        assert len(cursor) <= MAX_CURSOR_CHARS
    assert seen == sorted(sources, key=str.encode)  # byte order of the normalised sources
    first = await store.entries_page(mid, limit=3)
    await store.delete_entries(mid, [first.entries[-1][0]])  # the cursor's own entry goes
    rest = await store.entries_page(mid, limit=20, cursor=first.next_cursor)
    assert {s for s, _ in first.entries[:2]} | {s for s, _ in rest.entries} == set(sources) - {first.entries[-1][0]}
