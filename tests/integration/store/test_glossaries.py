"""Glossary records under concurrent changes: every change is atomic, nothing leaks or comes back."""

from __future__ import annotations

import asyncio
import json

import pytest
from redis.asyncio import Redis

from core import keys
from core.errors import ApiError, ErrorKind
from core.glossaries import GlossaryStore

DATA = {
    "name": "terms",
    "source_lang": "en",
    "target_lang": "es",
    "entries": [{"source": "sword", "target": "espada"}],
    "case_sensitive": False,
}


async def name_keys(redis: Redis, account: str) -> dict[str, str]:
    found = [k async for k in redis.scan_iter(match=keys.account_glossary_name(account, "*"))]
    return {k.rsplit(":", 1)[-1]: await redis.get(k) for k in found}


async def test_update_after_delete_does_not_resurrect(redis_client: Redis) -> None:
    store = GlossaryStore(redis_client)
    record = await store.create("acct", DATA)
    assert await store.delete(record["glossary_id"]) is True
    with pytest.raises(ApiError) as err:
        await store.update(record["glossary_id"], {"description": "late edit"})
    assert err.value.kind is ErrorKind.NOT_FOUND
    assert await store.get(record["glossary_id"]) is None
    assert await name_keys(redis_client, "acct") == {}
    assert await store.delete(record["glossary_id"]) is False


async def test_rename_moves_the_name_and_conflicts_leave_no_trace(redis_client: Redis) -> None:
    store = GlossaryStore(redis_client)
    first = await store.create("acct", DATA)
    second = await store.create("acct", {**DATA, "name": "other"})
    renamed = await store.update(first["glossary_id"], {"name": "weapons"})
    assert renamed["name"] == "weapons"
    with pytest.raises(ApiError) as err:
        await store.update(second["glossary_id"], {"name": "weapons"})
    assert err.value.kind is ErrorKind.CONFLICT
    assert await name_keys(redis_client, "acct") == {"weapons": first["glossary_id"], "other": second["glossary_id"]}


async def test_concurrent_renames_updates_and_deletes_stay_consistent(redis_client: Redis) -> None:
    """Many interleavings at once; afterwards every name key points at a live glossary with that name, and back."""
    store = GlossaryStore(redis_client)
    for round_ in range(15):
        records = [await store.create(f"acct{round_}", {**DATA, "name": f"g{i}"}) for i in range(3)]
        ids = [r["glossary_id"] for r in records]
        operations = [
            store.update(ids[0], {"name": "shared"}),
            store.update(ids[1], {"name": "shared"}),
            store.delete(ids[0]),
            store.update(ids[2], {"description": "edited"}),
            store.delete(ids[2]),
            store.update(ids[1], {"name": "g9"}),
        ]
        await asyncio.gather(*operations, return_exceptions=True)
        names = await name_keys(redis_client, f"acct{round_}")
        live = {gid: await store.get(gid) for gid in ids}
        live = {gid: rec for gid, rec in live.items() if rec is not None}
        assert {rec["name"]: gid for gid, rec in live.items()} == names
        members = await redis_client.zrange(keys.account_glossary_index(f"acct{round_}"), 0, -1)
        assert set(members) == set(live)
        stored = sum(len(json.dumps(record, separators=(",", ":"))) for record in live.values())
        assert int(await redis_client.get(keys.account_glossary_bytes(f"acct{round_}")) or 0) == stored
