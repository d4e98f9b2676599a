"""A request's glossaries and translation memory, checked at the edge (docs/steering.md).

Every translating request may name up to five glossaries (``glossary_id`` and ``glossary_ids`` together) and
one memory. A glossary or memory that does not exist, or is another account's, is refused the way the
request's endpoint refuses a glossary (the video endpoints' ``GLOSSARY_NOT_FOUND``, the game's
``INVALID_PARAMETER``). Each glossary applies to the target it is for; one that is for none of the request's
targets is refused, and so are two that give the same source term different translations for one pair.
Glossaries are snapshotted: later edits do not change a submitted task. A memory is read when the task runs,
so what it learns meanwhile is used; it must be for the request's source and one of its targets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.accounts import Account
from core.errors import ApiError, ErrorKind
from core.memories import memory_index as read_index
from core.specs.video import GlossaryEntry, GlossarySnapshot
from engines.translation.languages import primary
from engines.translation.memory import MemoryIndex
from serve_app.services import Services


def covers(record: dict[str, Any], source: str | None, target: str) -> bool:
    """Whether a stored glossary or memory is for ``source`` (None: not known yet) → ``target``."""
    if source is not None and primary(record["source_lang"]) != primary(source):
        return False
    return record["target_lang"] in (target, primary(target))


async def glossary_records(
    services: Services, account: Account, ids: Sequence[str], missing: ErrorKind = ErrorKind.GLOSSARY_NOT_FOUND
) -> list[dict[str, Any]]:
    """The named glossaries of the account, in the order named."""
    records = []
    for glossary_id in ids:
        record = await services.glossaries.get(glossary_id)
        if record is None or record["account_id"] != account.id:
            raise ApiError(missing, f"Glossary {glossary_id!r} does not exist or belongs to another account.")
        records.append(record)
    return records


def snapshots(
    records: Sequence[dict[str, Any]],
    source: str | None,
    targets: Sequence[str],
    kind: ErrorKind = ErrorKind.GLOSSARY_NOT_FOUND,
    *,
    every_one_used: bool = True,
) -> dict[str, GlossarySnapshot]:
    """Per target, the named glossaries for it merged into one snapshot (targets without any are left out).

    Raises ApiError: a glossary for none of ``targets`` (``kind``; unless not ``every_one_used``, when more
    targets are still to come), or two that disagree (``INVALID_PARAMETER``).
    """
    for record in records if every_one_used else ():
        if not any(covers(record, source, target) for target in targets):
            raise ApiError(
                kind,
                f"Glossary {record['glossary_id']!r} is for {record['source_lang']} → {record['target_lang']}, "
                "not this task's languages.",
            )
    out = {}
    for target in targets:
        chosen = [r for r in records if covers(r, source, target)]
        if chosen:
            out[target] = merged(chosen)
    return out


def merged(records: Sequence[dict[str, Any]]) -> GlossarySnapshot:
    """Several glossaries of one pair as one; ``INVALID_PARAMETER`` when two translate one term differently."""
    first = records[0]
    if len(records) == 1:
        return GlossarySnapshot.model_validate(first)
    sensitive = all(r["case_sensitive"] for r in records)
    seen: dict[str, tuple[str, str]] = {}  # term key → (target, glossary id)
    entries: list[GlossaryEntry] = []
    for record in records:
        for entry in record["entries"]:
            term = " ".join(entry["source"].split())
            key = term if sensitive else term.casefold()
            if key in seen:
                target, owner = seen[key]
                if target != entry["target"]:
                    raise ApiError(
                        ErrorKind.INVALID_PARAMETER,
                        f"Glossaries {owner!r} and {record['glossary_id']!r} translate {term!r} differently "
                        f"({target!r}, {entry['target']!r}); name one of them.",
                    )
                continue
            seen[key] = (entry["target"], record["glossary_id"])
            entries.append(GlossaryEntry(source=entry["source"], target=entry["target"]))
    return GlossarySnapshot(
        glossary_id=",".join(r["glossary_id"] for r in records),
        source_lang=first["source_lang"],
        target_lang=first["target_lang"],
        entries=entries,
        case_sensitive=sensitive,
    )


async def task_glossaries(
    services: Services, account: Account, ids: Sequence[str], source: str | None, targets: Sequence[str]
) -> dict[str, GlossarySnapshot]:
    """The snapshots of a video or subtitle task and its extra languages (``targets``, the task's first)."""
    if not ids:
        return {}
    return snapshots(await glossary_records(services, account, ids), source, targets)


async def memory_record(services: Services, account: Account, memory_id: str) -> dict[str, Any]:
    """The account's memory ``memory_id`` (400 ``INVALID_PARAMETER`` for an unknown or another account's)."""
    record = await services.memories.get(memory_id)
    if record is None or record["account_id"] != account.id:
        raise ApiError(
            ErrorKind.INVALID_PARAMETER, f"memory_id: memory {memory_id!r} does not exist or belongs to another account."
        )
    return record


async def check_memory(
    services: Services, account: Account, memory_id: str | None, source: str | None, target: str
) -> dict[str, Any] | None:
    """The named memory of the account, for ``source`` → ``target`` (the request's first target)."""
    if memory_id is None:
        return None
    record = await memory_record(services, account, memory_id)
    if not covers(record, source, target):
        raise ApiError(
            ErrorKind.INVALID_PARAMETER,
            f"memory_id: memory {memory_id!r} is for {record['source_lang']} → {record['target_lang']}, "
            f"not {source or 'the source'} → {target}.",
        )
    return record


async def memory_index(services: Services, record: dict[str, Any]) -> MemoryIndex:
    """The search index of a memory's current revision (``core.memories.memory_index``)."""
    return await read_index(services.memories, record)
