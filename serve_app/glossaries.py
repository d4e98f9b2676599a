"""Glossary records in Redis, owned by one account each (no TTL: they live with the account)."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from redis.asyncio import Redis

from deployments.engines.translation.glossary import Glossary
from serve_app import keys
from serve_app.errors import ApiError, ErrorKind
from serve_app.tasks import iso


class GlossaryStore:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def create(self, account_id: str, data: dict[str, Any]) -> dict[str, Any]:
        now = time.time()
        record = {**data, "glossary_id": "gl_" + uuid.uuid4().hex[:20], "account_id": account_id, "created": now, "updated": now}
        await self._claim_name(account_id, record["name"], record["glossary_id"])
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(keys.glossary(record["glossary_id"]), json.dumps(record))
        pipe.sadd(keys.account_glossaries(account_id), record["glossary_id"])
        await pipe.execute()
        return record

    async def get(self, glossary_id: str) -> dict[str, Any] | None:
        raw = await self.redis.get(keys.glossary(glossary_id))
        return json.loads(raw) if raw else None

    async def list(self, account_id: str) -> list[dict[str, Any]]:
        ids = list(await self.redis.smembers(keys.account_glossaries(account_id)))
        raws = await self.redis.mget([keys.glossary(i) for i in ids]) if ids else []
        records = [json.loads(r) for r in raws if r]
        return sorted(records, key=lambda r: r["created"])

    async def update(self, record: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
        new_name = changes.get("name")
        if new_name and new_name != record["name"]:
            await self._claim_name(record["account_id"], new_name, record["glossary_id"])
            await self.redis.delete(keys.account_glossary_name(record["account_id"], record["name"]))
        updated = {**record, **changes, "updated": time.time()}
        await self.redis.set(keys.glossary(record["glossary_id"]), json.dumps(updated))
        return updated

    async def delete(self, record: dict[str, Any]) -> None:
        pipe = self.redis.pipeline(transaction=True)
        pipe.delete(keys.glossary(record["glossary_id"]))
        pipe.delete(keys.account_glossary_name(record["account_id"], record["name"]))
        pipe.srem(keys.account_glossaries(record["account_id"]), record["glossary_id"])
        await pipe.execute()

    async def _claim_name(self, account_id: str, name: str, glossary_id: str) -> None:
        if not await self.redis.set(keys.account_glossary_name(account_id, name), glossary_id, nx=True):
            raise ApiError(ErrorKind.CONFLICT, f"A glossary named {name!r} already exists in this account.")


def to_engine_glossary(record: dict[str, Any]) -> Glossary:
    """The engine-side glossary (term matching and enforcement) of a stored record."""
    return Glossary(
        source_lang=record["source_lang"],
        target_lang=record["target_lang"],
        entries={e["source"]: e["target"] for e in record["entries"]},
        case_sensitive=record["case_sensitive"],
    )


def public(record: dict[str, Any], *, with_entries: bool = True) -> dict[str, Any]:
    body = {
        "glossary_id": record["glossary_id"],
        "name": record["name"],
        "source_lang": record["source_lang"],
        "target_lang": record["target_lang"],
        "entry_count": len(record["entries"]),
        "created_at": iso(record["created"]),
        "updated_at": iso(record["updated"]),
    }
    if with_entries:
        body.update(
            case_sensitive=record["case_sensitive"],
            description=record.get("description"),
            entries=record["entries"],
        )
    return body
