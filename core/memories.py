"""Translation memories in Redis, owned by one account each (no TTL: they live with the account).

A memory is one language pair's (source, target) pairs, up to tens of thousands, so its entries are
not one JSON record: layout (names in :mod:`core.keys`) is the record as a hash under ``mem:<id>``
(name, languages, ``revision``, ``entry_count``, ``bytes``, times), the entries as a hash from the
normalised source (:func:`normalise_source`) to the JSON ``[source, target]``, and a sorted set of the
normalised sources in byte order (entry pages and their cursor). Per account: a sorted set of its
memory ids by creation time, the byte count of its memories, and a hash of names to ids (a name is
unique within an account).

Every change is one Lua script (:mod:`core.memory_scripts`) that checks the account's caps
(:mod:`core.caps`) and writes the entries, the record and the counters together, so concurrent writes
can neither pass a cap nor leave the counters wrong. ``revision`` grows by one with every change of the
entries: a consumer keeps whatever it builds from a memory per (memory id, revision).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, cast

from redis.asyncio import Redis

from core import caps, keys, memory_cursors, memory_scripts
from core.cursors import page_after
from core.errors import ApiError, ErrorKind
from core.tasks import iso
from engines.text.memory_files import clean_text, normalise_source
from engines.translation.memory import MemoryIndex, cached, cached_index

__all__ = ["EntryPage", "MemoryPage", "MemoryStore", "normalise_source"]

Limits = Mapping[str, int | None]


def _missing(memory_id: str) -> ApiError:
    return ApiError(ErrorKind.NOT_FOUND, f"No translation memory {memory_id!r}.")


def _size(text: str) -> int:
    return len(text.encode())


def _clean(text: str, where: str) -> str:
    try:
        return clean_text(text)
    except ValueError as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"{where} {exc}.") from None


def _entries(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Normalised source → stored value; a later pair of the same source wins. Texts are checked and cleaned
    (:func:`engines.text.memory_files.clean_text`) whoever calls: INVALID_PARAMETER naming the first bad one."""
    out: dict[str, str] = {}
    for i, (raw_source, raw_target) in enumerate(pairs):
        source, target = _clean(raw_source, f"entries[{i}].source"), _clean(raw_target, f"entries[{i}].target")
        key = normalise_source(source)
        out.pop(key, None)  # the later pair's place, so a caller's order is kept
        out[key] = json.dumps([source, target], ensure_ascii=False, separators=(",", ":"))
    return out


def _flat(mapping: Mapping[str, str]) -> list[str]:
    return [item for pair in mapping.items() for item in pair]


def _entries_size(entries: Mapping[str, str]) -> int:
    return sum(_size(k) + _size(v) for k, v in entries.items())


def _refused(outcome: list[Any], limits: Limits) -> ApiError:
    name, held, adding = str(outcome[0]), int(outcome[1]), int(outcome[2])
    return caps.exceeded(
        name, held, caps.script_value(limits, name), adding=adding if adding > 0 and name != caps.MEMORIES else None
    )


def _check_count(count: int, limits: Limits) -> None:
    cap = caps.script_value(limits, caps.MEMORY_ENTRIES)
    if cap >= 0 and count > cap:
        raise caps.exceeded(caps.MEMORY_ENTRIES, count, cap)


def _record(raw: Mapping[str, str]) -> dict[str, Any]:
    """The public record of a stored hash."""
    return {
        "memory_id": raw["memory_id"],
        "account_id": raw["account_id"],
        "name": raw["name"],
        "description": raw.get("description"),
        "source_lang": raw["source_lang"],
        "target_lang": raw["target_lang"],
        "entry_count": int(raw["entry_count"]),
        "revision": int(raw["revision"]),
        "bytes": int(raw["bytes"]),
        "created_at": iso(float(raw["created"])),
        "updated_at": iso(float(raw["updated"])),
    }


@dataclasses.dataclass(frozen=True)
class MemoryPage:
    """One page of an account's memories, oldest first (records without entries)."""

    records: list[dict[str, Any]]
    total: int
    next_cursor: str | None


@dataclasses.dataclass(frozen=True)
class EntryPage:
    """One page of a memory's entries, by normalised source."""

    entries: list[tuple[str, str]]
    total: int
    next_cursor: str | None


class MemoryStore:
    """Translation memories of every account; each write checks the caps it is given (default: core.caps.DEFAULTS)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._create = redis.register_script(memory_scripts.CREATE)
        self._put = redis.register_script(memory_scripts.PUT)
        self._replace = redis.register_script(memory_scripts.REPLACE)
        self._delete_entries = redis.register_script(memory_scripts.DELETE_ENTRIES)
        self._delete = redis.register_script(memory_scripts.DELETE)

    async def create(self, account_id: str, body: dict[str, Any], limits: Limits = caps.DEFAULTS) -> dict[str, Any]:
        """Store a new memory from ``body`` (name, source_lang, target_lang, description?, entries: [{source, target}]
        or [(source, target)]); CONFLICT on a taken name, QUOTA_EXCEEDED over a cap. Returns the record."""
        entries = _entries(_pairs_of(body.get("entries") or []))
        _check_count(len(entries), limits)
        now = time.time()
        memory_id = "mem_" + uuid.uuid4().hex[:20]
        fields = {
            "memory_id": memory_id,
            "account_id": account_id,
            "name": body["name"],
            "source_lang": body["source_lang"],
            "target_lang": body["target_lang"],
            "created": repr(now),
            **({"description": body["description"]} if body.get("description") is not None else {}),
        }
        meta = sum(_size(k) + _size(v) for k, v in fields.items()) + 64  # and the counters and times beside them
        size = meta + _entries_size(entries)
        bytes_cap = caps.script_value(limits, caps.MEMORY_BYTES)
        if bytes_cap >= 0 and size > bytes_cap:
            raise caps.exceeded(caps.MEMORY_BYTES, size, bytes_cap)
        fields.update(updated=repr(now), revision="1", entry_count=str(len(entries)), bytes=str(size), meta_bytes=str(meta))
        outcome = await self._create(
            keys=[*_account_keys(account_id), *_memory_keys(memory_id)],
            args=[
                memory_id,
                body["name"],
                now,
                caps.script_value(limits, caps.MEMORIES),
                caps.script_value(limits, caps.MEMORY_TOTAL_BYTES),
                size,
                len(fields),
                *_flat(fields),
                *_flat(entries),
            ],
        )
        if outcome[0] == "name":
            raise ApiError(ErrorKind.CONFLICT, f"A translation memory named {body['name']!r} already exists in this account.")
        if outcome[0] != "ok":
            raise _refused(outcome, limits)
        return _record(fields)

    async def get(self, memory_id: str) -> dict[str, Any] | None:
        raw = cast("dict[str, str]", await self.redis.hgetall(keys.memory(memory_id)))
        return _record(raw) if raw.get("memory_id") else None

    async def pairs(self, memory_id: str) -> list[tuple[str, str]]:
        """Every (source, target) of the memory, in no particular order; empty when it does not exist."""
        values = cast("list[str]", await self.redis.hvals(keys.memory_entries(memory_id)))
        return [(source, target) for source, target in map(json.loads, values)]

    async def put_entries(self, memory_id: str, pairs: list[tuple[str, str]], limits: Limits = caps.DEFAULTS) -> tuple[int, int]:
        """Add the pairs, or replace the target of a source already there (normalised match): (added, replaced).

        A pair equal to the stored one counts as neither. NOT_FOUND when the memory is gone, QUOTA_EXCEEDED over a cap.
        """
        account = await self._account_of(memory_id)
        entries = _entries(pairs)
        outcome = await self._put(
            keys=[*_memory_keys(memory_id)[:3], keys.account_memory_bytes(account)],
            args=[
                repr(time.time()),
                caps.script_value(limits, caps.MEMORY_ENTRIES),
                caps.script_value(limits, caps.MEMORY_BYTES),
                caps.script_value(limits, caps.MEMORY_TOTAL_BYTES),
                *_flat(entries),
            ],
        )
        if outcome[0] == "missing":
            raise _missing(memory_id)
        if outcome[0] != "ok":
            raise _refused(outcome, limits)
        return int(outcome[1]), int(outcome[2])

    async def replace_entries(self, memory_id: str, pairs: Iterable[tuple[str, str]], limits: Limits = caps.DEFAULTS) -> int:
        """Replace every entry of the memory with ``pairs``; the number of entries it holds now."""
        account = await self._account_of(memory_id)
        entries = _entries(pairs)
        _check_count(len(entries), limits)
        outcome = await self._replace(
            keys=[*_memory_keys(memory_id)[:3], keys.account_memory_bytes(account)],
            args=[
                repr(time.time()),
                caps.script_value(limits, caps.MEMORY_BYTES),
                caps.script_value(limits, caps.MEMORY_TOTAL_BYTES),
                _entries_size(entries),
                *_flat(entries),
            ],
        )
        if outcome[0] == "missing":
            raise _missing(memory_id)
        if outcome[0] != "ok":
            raise _refused(outcome, limits)
        return len(entries)

    async def delete_entries(self, memory_id: str, sources: list[str]) -> int:
        """Delete the entries of ``sources`` (normalised match); how many there were."""
        account = await self._account_of(memory_id)
        normalised = list(dict.fromkeys(normalise_source(s) for s in sources))
        outcome = await self._delete_entries(
            keys=[*_memory_keys(memory_id)[:3], keys.account_memory_bytes(account)],
            args=[repr(time.time()), *normalised],
        )
        if outcome[0] == "missing":
            raise _missing(memory_id)
        return int(outcome[1])

    async def page(self, account_id: str, *, limit: int = 100, cursor: str | None = None) -> MemoryPage:
        """The account's memories oldest first, ``limit`` at a time. ValueError for a cursor this service did not issue."""
        index = keys.account_memory_index(account_id)
        total = int(await self.redis.zcard(index))
        ids, next_cursor = await page_after(self.redis, index, cursor, limit)
        async with self.redis.pipeline(transaction=False) as pipe:
            for mid in ids:
                pipe.hgetall(keys.memory(mid))
            raws = await pipe.execute() if ids else []
        records = [_record(raw) for raw in raws if raw.get("memory_id")]
        return MemoryPage(records, total, next_cursor)

    async def entries_page(self, memory_id: str, *, limit: int = 100, cursor: str | None = None) -> EntryPage:
        """The memory's entries by normalised source, ``limit`` at a time. ValueError for a foreign cursor."""
        order = keys.memory_entry_order(memory_id)
        low = await memory_cursors.low_bound(self.redis, order, memory_cursors.decode(cursor)) if cursor else "-"
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrangebylex(order, low, "+", start=0, num=limit + 1)
            pipe.hget(keys.memory(memory_id), "entry_count")
            chosen, count = await pipe.execute()
        more = len(chosen) > limit
        chosen = chosen[:limit]
        values = cast("list[str | None]", await self.redis.hmget(keys.memory_entries(memory_id), chosen)) if chosen else []
        entries = [(s, t) for s, t in (json.loads(v) for v in values if v is not None)]
        next_cursor = memory_cursors.encode(chosen[-1]) if more and chosen else None
        return EntryPage(entries, int(count or 0), next_cursor)

    async def usage(self, account_id: str) -> tuple[int, int]:
        """(memories, bytes of their records and entries) the account holds."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zcard(keys.account_memory_index(account_id))
            pipe.get(keys.account_memory_bytes(account_id))
            count, size = await pipe.execute()
        return int(count), int(size or 0)

    async def delete(self, memory_id: str) -> bool:
        """Remove the memory, its entries and its name; False when it was already gone."""
        account = cast("str | None", await self.redis.hget(keys.memory(memory_id), "account_id"))
        if account is None:
            return False
        removed = await self._delete(keys=[*_account_keys(account), *_memory_keys(memory_id)], args=[memory_id])
        return bool(int(removed))

    async def _account_of(self, memory_id: str) -> str:
        account = cast("str | None", await self.redis.hget(keys.memory(memory_id), "account_id"))
        if account is None:
            raise _missing(memory_id)
        return account


def _account_keys(account_id: str) -> list[str]:
    return [keys.account_memory_index(account_id), keys.account_memory_bytes(account_id), keys.account_memory_names(account_id)]


def _memory_keys(memory_id: str) -> list[str]:
    return [keys.memory(memory_id), keys.memory_entries(memory_id), keys.memory_entry_order(memory_id)]


def _pairs_of(entries: Iterable[Any]) -> list[tuple[str, str]]:
    """Entries given as {source, target} mappings or as (source, target) pairs."""
    return [(e["source"], e["target"]) if isinstance(e, Mapping) else (e[0], e[1]) for e in entries]


class PairSource(Protocol):
    """What an index is read from: a :class:`MemoryStore`, or a stand-in in tests."""

    async def pairs(self, memory_id: str) -> list[tuple[str, str]]: ...


async def memory_index(store: PairSource, record: dict[str, Any]) -> MemoryIndex:
    """The search index of a memory's current revision: kept by this process, read from Redis only on a miss."""
    key = (record["memory_id"], int(record["revision"]))
    index = cached(key)
    if index is None:
        pairs = await store.pairs(record["memory_id"])
        index = await asyncio.to_thread(cached_index, key, lambda: pairs)
    return index
