"""Translation memories (extension, docs/memories.md): ``/v1/memories`` and ``/v1/memories/{memory_id}``.

Errors use the platform code table, as glossaries do: 400 1001 invalid field or unreadable file,
400 1002 unsupported language or pair, 401 2001, 403 2003 a token without the platform scope,
404 2004 missing (another account's memory too), 409 1003 duplicate name, 409 1005 idempotency,
413 3001 body over its cap, 429 4001, 456 4002 a storage cap reached (core.caps). The checks and the
store calls are in :mod:`serve_app.account_memories`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.accounts import Account
from core.errors import ErrorKind
from engines.text.memory_files import MAX_MEMORY_FILE_BYTES
from serve_app import account_memories
from serve_app.auth import authenticate, services_of
from serve_app.bodies import parse_model, read_json
from serve_app.idempotency import fingerprint
from serve_app.openapi import JsonOrFormDoc
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.memory import (
    MemoryCreate,
    MemoryCreated,
    MemoryDeleted,
    MemoryEntries,
    MemoryEntriesDeleted,
    MemoryEntriesPut,
    MemoryEntriesQuery,
    MemoryList,
    MemoryListQuery,
    MemoryRecord,
    MemorySources,
    MemorySummary,
    MemoryUploadParams,
)
from serve_app.uploads import read_form

_COMMON = (ErrorKind.INVALID_PARAMETER, ErrorKind.FORBIDDEN, ErrorKind.RATE_LIMITED)
_ONE = (*_COMMON, ErrorKind.NOT_FOUND)
_WRITE = (*_ONE, ErrorKind.PAYLOAD_TOO_LARGE)
_FORMS = ("multipart/form-data", "application/x-www-form-urlencoded")


@api_route(
    "/v1/memories",
    "POST",
    JsonOrFormDoc(
        summary="Create a translation memory (extension)",
        description=(
            "JSON with `entries`, or multipart/form-data with `file` (TMX, XLIFF 1.2 or 2.0, CSV or TSV of two columns "
            f"source,target; at most {MAX_MEMORY_FILE_BYTES >> 20} MB) and the text fields. One language pair per memory. "
            "A file that cannot be read is refused with 400 and the first bad line or unit."
        ),
        body=MemoryCreate,
        form=MemoryUploadParams,
        form_files=("file",),
        response=MemoryCreated,
        status=201,
        errors=(
            *_COMMON,
            ErrorKind.UNSUPPORTED_LANGUAGE,
            ErrorKind.CONFLICT,
            ErrorKind.IDEMPOTENCY_CONFLICT,
            ErrorKind.PAYLOAD_TOO_LARGE,
            ErrorKind.QUOTA_EXCEEDED,
        ),
        tag="memories",
        idempotent_create=True,
    ),
)
async def create_memory(request: Request) -> Response:
    account = await authenticate(request)
    services = services_of(request)
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type in _FORMS:
        # The file part is held in memory and cut off at its cap while it streams (serve_app.uploads).
        form = await read_form(request, Path(tempfile.gettempdir()), attachments={"file": MAX_MEMORY_FILE_BYTES})
        params, parsed, digest = await account_memories.file_body(services, form)
        payload: Any = {"fields": form.fields, "file": digest}

        async def run() -> Response:
            record = await account_memories.create_from_file(services, account, params, parsed)
            return JSONResponse(record, status_code=201)

    else:
        payload = await read_json(request)
        body = await account_memories.json_body(services, payload)

        async def run() -> Response:
            return JSONResponse(await account_memories.create(services, account, body), status_code=201)

    return await services.idempotency.run(request, account.id, fingerprint("POST", request.url.path, payload), run)


@api_route(
    "/v1/memories",
    "GET",
    RouteDoc(
        summary="List the account's translation memories (extension)",
        description="Oldest first, without entries; `next_cursor` continues the list (absent on the last page).",
        query=MemoryListQuery,
        response=MemoryList,
        errors=_COMMON,
        tag="memories",
    ),
)
async def list_memories(request: Request) -> JSONResponse:
    account = await authenticate(request)
    query = parse_model(MemoryListQuery, dict(request.query_params))
    return JSONResponse(await account_memories.list_page(services_of(request), account, query))


@api_route(
    "/v1/memories/{memory_id}",
    "GET",
    RouteDoc(
        summary="Read a translation memory and a page of its entries (extension)",
        description="Entries by normalised source; `next_cursor` continues them (absent on the last page).",
        query=MemoryEntriesQuery,
        response=MemoryRecord,
        errors=_ONE,
        tag="memories",
    ),
)
async def get_memory(request: Request) -> JSONResponse:
    account = await authenticate(request)
    query = parse_model(MemoryEntriesQuery, dict(request.query_params))
    services = services_of(request)
    return JSONResponse(await account_memories.read(services, await _owned(request, account), query))


@api_route(
    "/v1/memories/{memory_id}",
    "DELETE",
    RouteDoc(summary="Delete a translation memory (extension)", response=MemoryDeleted, errors=_ONE, tag="memories"),
)
async def delete_memory(request: Request) -> JSONResponse:
    account = await authenticate(request)
    record = await _owned(request, account)
    return JSONResponse(await account_memories.delete(services_of(request), record))


@api_route(
    "/v1/memories/{memory_id}/entries",
    "POST",
    RouteDoc(
        summary="Add entries to a translation memory, or replace the target of a source it has (extension)",
        description="Sources match normalised (whitespace collapsed, case folded); of two pairs with one source the later wins.",
        body=MemoryEntries,
        response=MemoryEntriesPut,
        errors=(*_WRITE, ErrorKind.QUOTA_EXCEEDED),
        tag="memories",
    ),
)
async def put_entries(request: Request) -> JSONResponse:
    account = await authenticate(request)
    record = await _owned(request, account)
    body = parse_model(MemoryEntries, await read_json(request))
    return JSONResponse(await account_memories.put_entries(services_of(request), account, record, body))


@api_route(
    "/v1/memories/{memory_id}/entries",
    "PUT",
    RouteDoc(
        summary="Replace every entry of a translation memory (extension)",
        body=MemoryEntries,
        response=MemorySummary,
        errors=(*_WRITE, ErrorKind.QUOTA_EXCEEDED),
        tag="memories",
    ),
)
async def replace_entries(request: Request) -> JSONResponse:
    account = await authenticate(request)
    record = await _owned(request, account)
    body = parse_model(MemoryEntries, await read_json(request))
    return JSONResponse(await account_memories.replace_entries(services_of(request), account, record, body))


@api_route(
    "/v1/memories/{memory_id}/entries/delete",
    "POST",
    RouteDoc(
        summary="Delete entries of a translation memory by source (extension)",
        body=MemorySources,
        response=MemoryEntriesDeleted,
        errors=_WRITE,
        tag="memories",
    ),
)
async def delete_entries(request: Request) -> JSONResponse:
    account = await authenticate(request)
    record = await _owned(request, account)
    body = parse_model(MemorySources, await read_json(request))
    return JSONResponse(await account_memories.delete_entries(services_of(request), record, body))


async def _owned(request: Request, account: Account) -> dict[str, Any]:
    return await account_memories.owned(services_of(request), account, request.path_params["memory_id"])


ROUTES = [create_memory, list_memories, get_memory, delete_memory, put_entries, replace_entries, delete_entries]
