"""Glossary records in Redis, owned by one account each (no TTL: they live with the account).

Layout (names in :mod:`core.keys`): the record as JSON under ``gloss:<id>``,
the account's ids in a set, and ``acct-gloss-name:<account>:<name>`` → id so a
name is unique within an account. Every change touches several keys, so each
is one atomic step: create is a Lua script (the name is claimed only together
with the record); update and delete use optimistic locking (WATCH on the
record and the names involved), so a rename never leaks a name key and an
update racing a delete cannot bring the glossary back.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from core import keys
from core.errors import ApiError, ErrorKind
from deployments.engines.translation.glossary import Glossary

# KEYS: name key, record key, account index. ARGV: glossary id, record JSON.
_CREATE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX') == false then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
"""


def _name_taken(name: str) -> ApiError:
    return ApiError(ErrorKind.CONFLICT, f"A glossary named {name!r} already exists in this account.")


def _missing(glossary_id: str) -> ApiError:
    return ApiError(ErrorKind.NOT_FOUND, f"No glossary {glossary_id!r}.")


class GlossaryStore:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._create = redis.register_script(_CREATE)

    async def create(self, account_id: str, data: dict[str, Any]) -> dict[str, Any]:
        now = time.time()
        record = {**data, "glossary_id": "gl_" + uuid.uuid4().hex[:20], "account_id": account_id, "created": now, "updated": now}
        created = await self._create(
            keys=[
                keys.account_glossary_name(account_id, record["name"]),
                keys.glossary(record["glossary_id"]),
                keys.account_glossaries(account_id),
            ],
            args=[record["glossary_id"], json.dumps(record)],
        )
        if not int(created):
            raise _name_taken(record["name"])
        return record

    async def get(self, glossary_id: str) -> dict[str, Any] | None:
        raw = await self.redis.get(keys.glossary(glossary_id))
        return json.loads(raw) if raw else None

    async def list(self, account_id: str) -> list[dict[str, Any]]:
        ids = list(await self.redis.smembers(keys.account_glossaries(account_id)))
        raws = await self.redis.mget([keys.glossary(i) for i in ids]) if ids else []
        records = [json.loads(r) for r in raws if r]
        return sorted(records, key=lambda r: r["created"])

    async def update(self, glossary_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        """Apply ``changes`` to the stored record; NOT_FOUND when it was deleted, CONFLICT on a taken name."""
        record_key = keys.glossary(glossary_id)

        async def apply(pipe: Pipeline) -> dict[str, Any]:
            raw = await pipe.get(record_key)
            if raw is None:
                raise _missing(glossary_id)
            record = json.loads(raw)
            account, old_name = record["account_id"], record["name"]
            new_name = changes.get("name") or old_name
            if new_name != old_name:
                new_key = keys.account_glossary_name(account, new_name)
                await pipe.watch(new_key)
                if await pipe.exists(new_key):
                    raise _name_taken(new_name)
            updated = {**record, **changes, "updated": time.time()}
            pipe.multi()
            pipe.set(record_key, json.dumps(updated))
            if new_name != old_name:
                pipe.set(keys.account_glossary_name(account, new_name), glossary_id)
                pipe.delete(keys.account_glossary_name(account, old_name))
            return updated

        updated: dict[str, Any] = await self.redis.transaction(apply, record_key, value_from_callable=True)
        return updated

    async def delete(self, glossary_id: str) -> bool:
        """Remove the glossary and its name; False when it was already gone."""
        record_key = keys.glossary(glossary_id)

        async def remove(pipe: Pipeline) -> bool:
            raw = await pipe.get(record_key)
            if raw is None:
                return False
            record = json.loads(raw)
            name_key = keys.account_glossary_name(record["account_id"], record["name"])
            await pipe.watch(name_key)
            owns_name = await pipe.get(name_key) == glossary_id
            pipe.multi()
            pipe.delete(record_key)
            if owns_name:
                pipe.delete(name_key)
            pipe.srem(keys.account_glossaries(record["account_id"]), glossary_id)
            return True

        removed: bool = await self.redis.transaction(remove, record_key, value_from_callable=True)
        return removed


def to_engine_glossary(record: dict[str, Any]) -> Glossary:
    """The engine-side glossary (term matching and enforcement) of a stored record."""
    return Glossary(
        source_lang=record["source_lang"],
        target_lang=record["target_lang"],
        entries={e["source"]: e["target"] for e in record["entries"]},
        case_sensitive=record["case_sensitive"],
    )
