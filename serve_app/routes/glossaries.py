"""Glossary CRUD: ``/v1/glossaries`` and ``/v1/glossaries/{glossary_id}``.

Errors use the platform (language-list) code table: 400 1001 invalid field,
400 1002 unsupported language or pair, 401 2001, 403 2003 another account's
glossary, 404 2004 missing, 409 1003 duplicate name, 429 4001, 456 4002 a
storage cap reached (core.caps). The checks and the store calls are in
:mod:`serve_app.account_glossaries`.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.accounts import Account
from core.errors import ErrorKind
from serve_app import account_glossaries
from serve_app.auth import authenticate, services_of
from serve_app.bodies import parse_model, read_json
from serve_app.idempotency import fingerprint
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

_COMMON = (ErrorKind.INVALID_PARAMETER, ErrorKind.RATE_LIMITED)
_ONE = (*_COMMON, ErrorKind.FORBIDDEN, ErrorKind.NOT_FOUND)


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
    services = services_of(request)
    body = await account_glossaries.with_canonical_languages(services, parse_model(GlossaryCreate, raw))

    async def run() -> Response:
        return JSONResponse(await account_glossaries.create(services, account, body), status_code=201)

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
    query = parse_model(GlossaryListQuery, dict(request.query_params))
    return JSONResponse(await account_glossaries.list_page(services_of(request), account, query))


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
    body = parse_model(GlossaryUpdate, await read_json(request))
    return JSONResponse(await account_glossaries.update(services_of(request), account, record, body))


@api_route(
    "/v1/glossaries/{glossary_id}",
    "DELETE",
    RouteDoc(summary="Delete a glossary", response=GlossaryDeleted, errors=_ONE, tag="glossaries"),
)
async def delete_glossary(request: Request) -> JSONResponse:
    account = await authenticate(request)
    record = await _owned(request, account)
    return JSONResponse(await account_glossaries.delete(services_of(request), record))


async def _owned(request: Request, account: Account) -> dict[str, Any]:
    return await account_glossaries.owned(services_of(request), account, request.path_params["glossary_id"])


ROUTES = [create_glossary, list_glossaries, get_glossary, update_glossary, delete_glossary]
