"""Glossary records in Redis, owned by one account each (no TTL: they live with the account).

Layout (names in :mod:`core.keys`): the record as compact JSON under
``gloss:<id>``; per account a sorted set of its ids by creation time (list
order and cursor), the byte count of its records, and
``acct-gloss-name:<account>:<name>`` → id so a name is unique within an
account. Every change is one Lua script that checks the account's caps
(:mod:`core.caps`) and writes the record, its name, the index and the byte
count together, so concurrent writes can neither overshoot a cap nor leak a
name. Update and delete are compare-and-set on the record they read (its
SHA-1), retried when another write got there first: a rename never leaks a
name key and an update racing a delete cannot bring the glossary back.

Accounts written before the sorted set existed have a plain set of ids; the
first script to touch such an account moves it into the sorted set and counts
its bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from typing import Any, cast

from redis.asyncio import Redis

from core import caps, keys
from core.cursors import page_after
from core.errors import ApiError, ErrorKind
from engines.translation.glossary import Glossary

#: Attempts of a compare-and-set write before giving up on a record that keeps changing.
_CAS_ATTEMPTS = 20

# Moves a legacy plain set of ids into the sorted set and counts the records' bytes.
# l = {legacy set, sorted index, byte counter}; prefix: the record key without its id.
_MIGRATE = """
local function migrate(l, prefix)
  if redis.call('EXISTS', l[1]) == 0 then return end
  for _, id in ipairs(redis.call('SMEMBERS', l[1])) do
    local raw = redis.call('GET', prefix .. id)
    if raw and redis.call('ZADD', l[2], 'NX', cjson.decode(raw)['created'], id) == 1 then
      redis.call('INCRBY', l[3], string.len(raw))
    end
  end
  redis.call('DEL', l[1])
end
"""

# KEYS: legacy set, index, byte counter, name key, record key.
# ARGV: record key prefix, glossary id, record JSON, created, count cap, bytes cap (-1: unlimited).
# Returns {'ok'}, {'name'} or {cap name, used}.
_CREATE = (
    _MIGRATE
    + """
migrate(KEYS, ARGV[1])
if redis.call('EXISTS', KEYS[4]) == 1 then return {'name'} end
local count = redis.call('ZCARD', KEYS[2])
local cap = tonumber(ARGV[5])
if cap >= 0 and count >= cap then return {'glossaries', count} end
local used = tonumber(redis.call('GET', KEYS[3]) or '0')
cap = tonumber(ARGV[6])
if cap >= 0 and used + string.len(ARGV[3]) > cap then return {'glossary_total_bytes', used} end
redis.call('SET', KEYS[4], ARGV[2])
redis.call('SET', KEYS[5], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
redis.call('INCRBY', KEYS[3], string.len(ARGV[3]))
return {'ok'}
"""
)

# KEYS: legacy set, index, byte counter, record key, old name key, new name key.
# ARGV: record key prefix, glossary id, SHA-1 of the record read, new record JSON, bytes cap.
# Returns {'ok'}, {'missing'}, {'retry'} (the record changed since it was read), {'name'} or {cap name, used}.
_UPDATE = (
    _MIGRATE
    + """
migrate(KEYS, ARGV[1])
local raw = redis.call('GET', KEYS[4])
if not raw then return {'missing'} end
if redis.sha1hex(raw) ~= ARGV[3] then return {'retry'} end
local rename = KEYS[5] ~= KEYS[6]
if rename and redis.call('EXISTS', KEYS[6]) == 1 then return {'name'} end
local delta = string.len(ARGV[4]) - string.len(raw)
local used = tonumber(redis.call('GET', KEYS[3]) or '0')
local cap = tonumber(ARGV[5])
if cap >= 0 and delta > 0 and used + delta > cap then return {'glossary_total_bytes', used} end
redis.call('SET', KEYS[4], ARGV[4])
if rename then
  redis.call('SET', KEYS[6], ARGV[2])
  if redis.call('GET', KEYS[5]) == ARGV[2] then redis.call('DEL', KEYS[5]) end
end
redis.call('INCRBY', KEYS[3], delta)
return {'ok'}
"""
)

# KEYS: legacy set, index, byte counter, record key, name key.
# ARGV: record key prefix, glossary id, SHA-1 of the record read. Returns 1, 0 (gone) or -1 (changed: retry).
_DELETE = (
    _MIGRATE
    + """
migrate(KEYS, ARGV[1])
local raw = redis.call('GET', KEYS[4])
if not raw then return 0 end
if redis.sha1hex(raw) ~= ARGV[3] then return -1 end
redis.call('DEL', KEYS[4])
if redis.call('GET', KEYS[5]) == ARGV[2] then redis.call('DEL', KEYS[5]) end
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('DECRBY', KEYS[3], string.len(raw))
return 1
"""
)

# KEYS: legacy set, index, byte counter. ARGV: record key prefix. Returns {glossaries, bytes}.
_USAGE = (
    _MIGRATE
    + """
migrate(KEYS, ARGV[1])
return {redis.call('ZCARD', KEYS[2]), tonumber(redis.call('GET', KEYS[3]) or '0')}
"""
)


def _name_taken(name: str) -> ApiError:
    return ApiError(ErrorKind.CONFLICT, f"A glossary named {name!r} already exists in this account.")


def _missing(glossary_id: str) -> ApiError:
    return ApiError(ErrorKind.NOT_FOUND, f"No glossary {glossary_id!r}.")


def _encode(record: dict[str, Any]) -> str:
    """The stored form, whose length is what the byte caps count (ASCII: any text a client sends can be stored)."""
    return json.dumps(record, separators=(",", ":"))


def _size(raw: str) -> int:
    return len(raw.encode())


def _sha1(raw: str) -> str:
    return hashlib.sha1(raw.encode()).hexdigest()


def _record_prefix() -> str:
    return keys.glossary("")


def _account_keys(account_id: str) -> list[str]:
    return [keys.account_glossaries(account_id), keys.account_glossary_index(account_id), keys.account_glossary_bytes(account_id)]


def _check_record(record: dict[str, Any], raw: str, limits: Mapping[str, int | None]) -> None:
    """The caps one record must fit, whatever the account holds."""
    entries_cap = caps.script_value(limits, caps.GLOSSARY_ENTRIES)
    if entries_cap >= 0 and len(record["entries"]) > entries_cap:
        raise caps.exceeded(caps.GLOSSARY_ENTRIES, len(record["entries"]), entries_cap)
    bytes_cap = caps.script_value(limits, caps.GLOSSARY_BYTES)
    if bytes_cap >= 0 and _size(raw) > bytes_cap:
        raise caps.exceeded(caps.GLOSSARY_BYTES, _size(raw), bytes_cap)


def _refused(outcome: list[Any], limits: Mapping[str, int | None], adding: int) -> ApiError:
    name, used = str(outcome[0]), int(outcome[1])
    return caps.exceeded(name, used, caps.script_value(limits, name), adding=adding if name != caps.GLOSSARIES else None)


@dataclasses.dataclass(frozen=True)
class GlossaryPage:
    """One page of an account's glossaries, oldest first.

    Attributes:
        records: the page's records.
        total: glossaries of the account (all pages).
        next_cursor: continues after the last record; None on the last page.
    """

    records: list[dict[str, Any]]
    total: int
    next_cursor: str | None


class GlossaryStore:
    """Glossaries of every account; each write checks the caps it is given (default: :data:`core.caps.DEFAULTS`)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._create = redis.register_script(_CREATE)
        self._update = redis.register_script(_UPDATE)
        self._delete = redis.register_script(_DELETE)
        self._usage = redis.register_script(_USAGE)

    async def create(
        self, account_id: str, data: dict[str, Any], limits: Mapping[str, int | None] = caps.DEFAULTS
    ) -> dict[str, Any]:
        """Store a new glossary; CONFLICT on a taken name, QUOTA_EXCEEDED over a cap."""
        now = time.time()
        record = {**data, "glossary_id": "gl_" + uuid.uuid4().hex[:20], "account_id": account_id, "created": now, "updated": now}
        raw = _encode(record)
        _check_record(record, raw, limits)
        outcome = await self._create(
            keys=[
                *_account_keys(account_id),
                keys.account_glossary_name(account_id, record["name"]),
                keys.glossary(record["glossary_id"]),
            ],
            args=[
                _record_prefix(),
                record["glossary_id"],
                raw,
                now,
                caps.script_value(limits, caps.GLOSSARIES),
                caps.script_value(limits, caps.GLOSSARY_TOTAL_BYTES),
            ],
        )
        if outcome[0] == "name":
            raise _name_taken(record["name"])
        if outcome[0] != "ok":
            raise _refused(outcome, limits, _size(raw))
        return record

    async def get(self, glossary_id: str) -> dict[str, Any] | None:
        raw = await self.redis.get(keys.glossary(glossary_id))
        return json.loads(raw) if raw else None

    async def page(self, account_id: str, *, limit: int = 100, cursor: str | None = None) -> GlossaryPage:
        """The account's glossaries oldest first, ``limit`` at a time; only the page's records are read.

        Raises ValueError for a cursor this service did not issue.
        """
        total, _ = await self.usage(account_id)
        ids, next_cursor = await page_after(self.redis, keys.account_glossary_index(account_id), cursor, limit)
        raws = await self.redis.mget([keys.glossary(gid) for gid in ids]) if ids else []
        records = [json.loads(raw) for raw in raws if raw]
        return GlossaryPage(records, total, next_cursor)

    async def usage(self, account_id: str) -> tuple[int, int]:
        """(glossaries, bytes of their records) the account holds."""
        count, size = await self._usage(keys=_account_keys(account_id), args=[_record_prefix()])
        return int(count), int(size)

    async def update(
        self, glossary_id: str, changes: dict[str, Any], limits: Mapping[str, int | None] = caps.DEFAULTS
    ) -> dict[str, Any]:
        """Apply ``changes`` to the stored record; NOT_FOUND when it was deleted, CONFLICT on a taken name,
        QUOTA_EXCEEDED over a cap."""
        record_key = keys.glossary(glossary_id)
        for _ in range(_CAS_ATTEMPTS):
            raw = cast("str | None", await self.redis.get(record_key))  # decoded responses
            if raw is None:
                raise _missing(glossary_id)
            record = json.loads(raw)
            account = record["account_id"]
            updated = {**record, **changes, "updated": time.time()}
            new_raw = _encode(updated)
            _check_record(updated, new_raw, limits)
            outcome = await self._update(
                keys=[
                    *_account_keys(account),
                    record_key,
                    keys.account_glossary_name(account, record["name"]),
                    keys.account_glossary_name(account, updated["name"]),
                ],
                args=[_record_prefix(), glossary_id, _sha1(raw), new_raw, caps.script_value(limits, caps.GLOSSARY_TOTAL_BYTES)],
            )
            if outcome[0] == "ok":
                return updated
            if outcome[0] == "missing":
                raise _missing(glossary_id)
            if outcome[0] == "name":
                raise _name_taken(updated["name"])
            if outcome[0] != "retry":
                raise _refused(outcome, limits, _size(new_raw) - _size(raw))
        raise ApiError(ErrorKind.CONFLICT, f"Glossary {glossary_id!r} kept changing during this update; retry it.")

    async def delete(self, glossary_id: str) -> bool:
        """Remove the glossary and its name; False when it was already gone."""
        record_key = keys.glossary(glossary_id)
        for _ in range(_CAS_ATTEMPTS):
            raw = cast("str | None", await self.redis.get(record_key))  # decoded responses
            if raw is None:
                return False
            record = json.loads(raw)
            account = record["account_id"]
            removed = await self._delete(
                keys=[*_account_keys(account), record_key, keys.account_glossary_name(account, record["name"])],
                args=[_record_prefix(), glossary_id, _sha1(raw)],
            )
            if int(removed) >= 0:
                return bool(int(removed))
        raise ApiError(ErrorKind.CONFLICT, f"Glossary {glossary_id!r} kept changing during this deletion; retry it.")


def to_engine_glossary(record: dict[str, Any]) -> Glossary:
    """The engine-side glossary (term matching and enforcement) of a stored record."""
    return Glossary(
        source_lang=record["source_lang"],
        target_lang=record["target_lang"],
        entries={e["source"]: e["target"] for e in record["entries"]},
        case_sensitive=record["case_sensitive"],
    )
