"""An account's translation memories at the edge: create (JSON or a file), list, read, change entries, delete.

A memory's languages are fixed at creation, checked as a glossary's: a concrete source (never ``auto``;
a variant becomes its primary code) and a target the service translates into from it (400 1002
otherwise). Another account's memory is answered as a missing one (404 2004), so ids cannot be probed;
the store enforces unique names (409 1003) and the account's storage caps (456 4002, :mod:`core.caps`).
A file is read by :mod:`engines.text.memory_files` in a worker thread; one it cannot read is 400 1001
with the reader's one-line reason.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from core import caps
from core.accounts import Account
from core.errors import ApiError, ErrorKind
from core.memories import normalise_source
from engines.text.memory_files import MAX_MEMORY_FILE_BYTES, BadMemoryFile, MemoryFile, read_memory_file
from serve_app.auth import require_owner
from serve_app.bodies import parse_model
from serve_app.schemas.memory import (
    MemoryCreate,
    MemoryEntries,
    MemoryEntriesQuery,
    MemoryListQuery,
    MemorySources,
    MemoryUploadParams,
    public,
)
from serve_app.services import Services
from serve_app.uploads import FormBody

NO_FILE = "file: send the memory as a file part named 'file' (TMX, XLIFF, CSV or TSV), or send JSON entries."


async def canonical_languages(services: Services, source_lang: str, target_lang: str) -> tuple[str, str]:
    """The pair's canonical codes, once the service translates it."""
    if source_lang.strip().lower() == "auto":
        raise ApiError(
            ErrorKind.INVALID_PARAMETER,
            "A translation memory needs a concrete source_lang, never auto.",
            details=[{"field": "source_lang", "message": "auto is not allowed"}],
        )
    source = services.catalog.resolve(source_lang, "source_lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE, as_primary=True)
    target = services.catalog.resolve(target_lang, "target_lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE)
    offered = await services.capabilities.get()
    if (source, target) not in offered.translation_pairs:
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, offered.refusal(source, target))
    return source, target


async def json_body(services: Services, raw: Any) -> MemoryCreate:
    """The JSON create body, its languages canonical."""
    body = parse_model(MemoryCreate, raw)
    source, target = await canonical_languages(services, body.source_lang, body.target_lang)
    return body.model_copy(update={"source_lang": source, "target_lang": target})


async def file_body(services: Services, form: FormBody) -> tuple[MemoryUploadParams, MemoryFile, str]:
    """The form's fields (languages canonical), its file read into pairs, and a digest of both (idempotency)."""
    params = parse_model(MemoryUploadParams, form.fields)
    upload = form.attachments.get("file")
    if upload is None:
        raise ApiError(ErrorKind.INVALID_PARAMETER, NO_FILE)
    source, target = await canonical_languages(services, params.source_lang, params.target_lang)
    params = params.model_copy(update={"source_lang": source, "target_lang": target})
    if len(upload.data) > MAX_MEMORY_FILE_BYTES:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"file is over the {MAX_MEMORY_FILE_BYTES // (1 << 20)} MB limit.")
    try:
        parsed = await asyncio.to_thread(read_memory_file, upload.data, upload.filename, source, target)
    except BadMemoryFile as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"file cannot be read: {exc}") from None
    digest = hashlib.sha256(upload.data).hexdigest()
    return params, parsed, digest


async def create(services: Services, account: Account, body: MemoryCreate) -> dict[str, Any]:
    """Store ``body`` (its languages already canonical) as a new memory of the account."""
    record = await services.memories.create(account.id, body.model_dump(), caps.resolve(account))
    return public(record)


async def create_from_file(
    services: Services, account: Account, params: MemoryUploadParams, parsed: MemoryFile
) -> dict[str, Any]:
    data = {**params.model_dump(), "entries": parsed.pairs}
    record = await services.memories.create(account.id, data, caps.resolve(account))
    report = {"format": parsed.format, "pairs": len(parsed.pairs), "skipped": parsed.skipped}
    return {**public(record), "file": report}


async def list_page(services: Services, account: Account, query: MemoryListQuery) -> dict[str, Any]:
    """One page of the account's memories, oldest first, without entries."""
    try:
        page = await services.memories.page(account.id, limit=query.limit, cursor=query.cursor)
    except ValueError as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"cursor: {exc}") from None
    body: dict[str, Any] = {"memories": [public(r) for r in page.records], "total": page.total}
    if page.next_cursor:
        body["next_cursor"] = page.next_cursor
    return body


async def owned(services: Services, account: Account, memory_id: str) -> dict[str, Any]:
    """The stored record; 404 when missing or another account's."""
    record = await services.memories.get(memory_id)
    if record is None:
        raise _missing()
    require_owner(account, record["account_id"], "translation memory", hide=True)
    return record


async def read(services: Services, record: dict[str, Any], query: MemoryEntriesQuery) -> dict[str, Any]:
    """The record and one page of its entries."""
    try:
        page = await services.memories.entries_page(record["memory_id"], limit=query.limit, cursor=query.cursor)
    except ValueError as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"cursor: {exc}") from None
    body = {**public(record), "entries": [{"source": s, "target": t} for s, t in page.entries]}
    if page.next_cursor:
        body["next_cursor"] = page.next_cursor
    return body


async def put_entries(services: Services, account: Account, record: dict[str, Any], body: MemoryEntries) -> dict[str, Any]:
    pairs = [(e.source, e.target) for e in body.entries]
    added, replaced = await services.memories.put_entries(record["memory_id"], pairs, caps.resolve(account))
    given = len({normalise_source(s) for s, _ in pairs})
    return {
        "added": added,
        "replaced": replaced,
        "unchanged": given - added - replaced,
        "memory": await _current(services, record),
    }


async def replace_entries(services: Services, account: Account, record: dict[str, Any], body: MemoryEntries) -> dict[str, Any]:
    pairs = [(e.source, e.target) for e in body.entries]
    await services.memories.replace_entries(record["memory_id"], pairs, caps.resolve(account))
    return await _current(services, record)


async def delete_entries(services: Services, record: dict[str, Any], body: MemorySources) -> dict[str, Any]:
    deleted = await services.memories.delete_entries(record["memory_id"], body.sources)
    return {"deleted": deleted, "memory": await _current(services, record)}


async def delete(services: Services, record: dict[str, Any]) -> dict[str, Any]:
    if not await services.memories.delete(record["memory_id"]):
        raise _missing()
    return {"memory_id": record["memory_id"], "deleted": True}


async def _current(services: Services, record: dict[str, Any]) -> dict[str, Any]:
    """The record as stored now (after a change); 404 when deleted meanwhile."""
    current = await services.memories.get(record["memory_id"])
    if current is None:
        raise _missing()
    return public(current)


def _missing() -> ApiError:
    return ApiError(ErrorKind.NOT_FOUND, "No such translation memory.")
