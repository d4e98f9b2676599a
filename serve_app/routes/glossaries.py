"""Glossary CRUD: ``/v1/glossaries`` and ``/v1/glossaries/{glossary_id}``.

Errors use the platform (language-list) code table: 400 1001 invalid field,
400 1002 unsupported language or pair, 401 2001, 403 2003 another account's
glossary, 404 2004 missing, 409 1003 duplicate name, 429 4001, 456 4002 a
storage cap reached (core.caps).
"""

from __future__ import annotations

from typing import Any

import pydantic
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core import caps
from core.accounts import Account
from core.errors import ApiError, ErrorKind
from core.glossaries import GlossaryStore
from serve_app.auth import authenticate, require_owner, services_of
from serve_app.bodies import parse_model, read_json
from serve_app.catalog import UnknownLanguage
from serve_app.idempotency import fingerprint
from serve_app.responses import validation_error
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.glossary import (
    GlossaryCreate,
    GlossaryDeleted,
    GlossaryList,
    GlossaryListQuery,
    GlossaryRecord,
    GlossaryUpdate,
    public,
)
from serve_app.services import Services

_COMMON = (ErrorKind.INVALID_PARAMETER, ErrorKind.RATE_LIMITED)
_ONE = (*_COMMON, ErrorKind.FORBIDDEN, ErrorKind.NOT_FOUND)


def store(request: Request) -> GlossaryStore:
    return services_of(request).glossaries


@api_route(
    "/v1/glossaries",
    "POST",
    RouteDoc(
        summary="Create a glossary",
        body=GlossaryCreate,
        response=GlossaryRecord,
        status=201,
        errors=(
            *_COMMON,
            ErrorKind.UNSUPPORTED_LANGUAGE,
            ErrorKind.CONFLICT,
            ErrorKind.IDEMPOTENCY_CONFLICT,
            ErrorKind.QUOTA_EXCEEDED,
        ),
        tag="glossaries",
        idempotent_create=True,
    ),
)
async def create_glossary(request: Request) -> Response:
    account = await authenticate(request)
    raw = await read_json(request)
    body = parse_model(GlossaryCreate, raw)
    services = services_of(request)
    source, target = await _languages(services, body.source_lang, body.target_lang)

    async def run() -> Response:
        data = {**body.model_dump(), "source_lang": source, "target_lang": target}
        record = await store(request).create(account.id, data, caps.resolve(account))
        return JSONResponse(public(record), status_code=201)

    return await services.idempotency.run(request, account.id, fingerprint("POST", request.url.path, raw), run)


@api_route(
    "/v1/glossaries",
    "GET",
    RouteDoc(
        summary="List the account's glossaries",
        description="Oldest first, without entries; `next_cursor` continues the list (absent on the last page).",
        query=GlossaryListQuery,
        response=GlossaryList,
        errors=_COMMON,
        tag="glossaries",
    ),
)
async def list_glossaries(request: Request) -> JSONResponse:
    account = await authenticate(request)
    try:
        query = GlossaryListQuery.model_validate(dict(request.query_params))
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None
    try:
        page = await store(request).page(account.id, limit=query.limit, cursor=query.cursor)
    except ValueError as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"cursor: {exc}") from None
    body: dict[str, Any] = {"glossaries": [public(r, with_entries=False) for r in page.records], "total": page.total}
    if page.next_cursor:
        body["next_cursor"] = page.next_cursor
    return JSONResponse(body)


@api_route(
    "/v1/glossaries/{glossary_id}",
    "GET",
    RouteDoc(summary="Read a glossary", response=GlossaryRecord, errors=_ONE, tag="glossaries"),
)
async def get_glossary(request: Request) -> JSONResponse:
    account = await authenticate(request)
    return JSONResponse(public(await _owned(request, account)))


@api_route(
    "/v1/glossaries/{glossary_id}",
    "PUT",
    RouteDoc(
        summary="Update a glossary's name, entries, case sensitivity or description",
        body=GlossaryUpdate,
        response=GlossaryRecord,
        errors=(*_ONE, ErrorKind.CONFLICT, ErrorKind.QUOTA_EXCEEDED),
        tag="glossaries",
    ),
)
async def update_glossary(request: Request) -> JSONResponse:
    account = await authenticate(request)
    record = await _owned(request, account)
    changes = parse_model(GlossaryUpdate, await read_json(request)).model_dump(exclude_unset=True)
    if any(v is None for k, v in changes.items() if k != "description"):
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Only description may be set to null.")
    current = {k: record[k] for k in GlossaryCreate.model_fields if k in record}
    merged = parse_model(GlossaryCreate, {**current, **changes})  # re-checks unique terms under the new case rule
    updated = await store(request).update(record["glossary_id"], merged.model_dump(include=set(changes)), caps.resolve(account))
    return JSONResponse(public(updated))


@api_route(
    "/v1/glossaries/{glossary_id}",
    "DELETE",
    RouteDoc(summary="Delete a glossary", response=GlossaryDeleted, errors=_ONE, tag="glossaries"),
)
async def delete_glossary(request: Request) -> JSONResponse:
    account = await authenticate(request)
    record = await _owned(request, account)
    if not await store(request).delete(record["glossary_id"]):
        raise ApiError(ErrorKind.NOT_FOUND, "No such glossary.")
    return JSONResponse({"glossary_id": record["glossary_id"], "deleted": True})


async def _owned(request: Request, account: Account) -> dict[str, Any]:
    record = await store(request).get(request.path_params["glossary_id"])
    if record is None:
        raise ApiError(ErrorKind.NOT_FOUND, "No such glossary.")
    require_owner(account, record["account_id"], "glossary")
    return record


async def _languages(services: Services, source_lang: str, target_lang: str) -> tuple[str, str]:
    if source_lang.strip().lower() == "auto":
        raise ApiError(
            ErrorKind.INVALID_PARAMETER,
            "A glossary needs a concrete source_lang, never auto.",
            details=[{"field": "source_lang", "message": "auto is not allowed"}],
        )
    try:
        source = services.catalog.primary(source_lang)
        target = services.catalog.canonical(target_lang)
    except UnknownLanguage as exc:
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, f"Unsupported language code {exc.args[0]!r}.") from None
    if (source, target) not in (await services.capabilities.get()).translation_pairs:
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, f"Translation {source} → {target} is not available on this service.")
    return source, target


ROUTES = [create_glossary, list_glossaries, get_glossary, update_glossary, delete_glossary]
