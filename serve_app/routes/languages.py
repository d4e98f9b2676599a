"""``GET /v1/languages``: the catalogue, filtered by what the engines report."""

from __future__ import annotations

import hashlib
import json

import pydantic
from starlette.requests import Request
from starlette.responses import Response

from core.errors import ErrorKind
from serve_app.auth import client_address, services_of
from serve_app.responses import validation_error
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.languages import LanguageList, LanguagesQuery

CACHE_CONTROL = "public, max-age=86400"

DOC = RouteDoc(
    summary="List supported languages",
    description=(
        "No authentication; rate limited per client address (anonymous_limits). "
        "Flags and source/target answers reflect the deployed engines."
    ),
    auth=False,
    query=LanguagesQuery,
    response=LanguageList,
    errors=(ErrorKind.INVALID_PARAMETER, ErrorKind.RATE_LIMITED, ErrorKind.INTERNAL),
    tag="languages",
)


@api_route("/v1/languages", "GET", DOC)
async def list_languages(request: Request) -> Response:
    services = services_of(request)
    await services.anonymous.check(client_address(request, services.args.anonymous_limits.trust_forwarded_for))
    query = _parse(request)
    caps = await services.capabilities.get()
    rows = services.catalog.query(caps, type=query.type, capability=query.capability, source=query.source, target=query.target)
    body = json.dumps({"languages": rows, "total": len(rows)}, ensure_ascii=False, separators=(",", ":")).encode()
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"Cache-Control": CACHE_CONTROL, "ETag": etag}
    if etag in _etags(request.headers.get("if-none-match", "")):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


def _parse(request: Request) -> LanguagesQuery:
    try:
        query = LanguagesQuery.model_validate(dict(request.query_params))
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from exc
    catalog = services_of(request).catalog
    for field in ("source", "target"):
        value = getattr(query, field)
        if value is None:
            continue
        catalog.resolve(value, field)
    return query


def _etags(header: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


ROUTES = [list_languages]
