"""``GET /v1/files/{key}``: task output files behind signed, expiring links.

The signature in the query string is the credential, so no Authorization
header is needed: a customer can hand a subtitle link to a player as is.
Expired and forged links both answer 410 ``LINK_EXPIRED`` (one status, one
remedy: get the task again) with messages that tell the two apart; a query
without ``expires`` (digits) and ``sig`` is not a link at all and answers 400
``INVALID_PARAMETER``; a signed link whose file is gone answers 404.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path

import pydantic
from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import FileResponse, Response

from core.errors import ApiError, ErrorKind
from core.files import LinkExpired, LinkForged, ServedFileStore, StoredFile
from core.tasks import iso
from serve_app.responses import validation_error
from serve_app.routing import RouteDoc, api_route


class FileLinkQuery(BaseModel):
    """Query of a download link, exactly as the service issued it."""

    expires: str = Field(pattern=r"^[0-9]{1,12}$", description="Unix time (seconds) at which the link stops working")
    sig: str = Field(min_length=1, max_length=128, description="Link signature (base64url HMAC-SHA256)")


DOC = RouteDoc(
    summary="Download a task output file",
    description="No authentication: the signed link is the credential. Links expire 24 h after the file was created.",
    auth=False,
    query=FileLinkQuery,
    errors=(ErrorKind.INVALID_PARAMETER, ErrorKind.LINK_EXPIRED, ErrorKind.NOT_FOUND),
    tag="video",
)


@api_route("/v1/files/{key:path}", "GET", DOC)
async def download_file(request: Request) -> Response:
    store = _store(request)
    key = request.path_params["key"]
    try:
        FileLinkQuery.model_validate(dict(request.query_params))
    except pydantic.ValidationError as exc:  # not a link this service wrote: the query itself is malformed
        raise validation_error(exc) from None
    expires = _check_link(store, key, request.query_params)
    try:
        path, meta = await asyncio.to_thread(_locate, store, key)
    except (FileNotFoundError, ValueError) as exc:
        raise ApiError(ErrorKind.NOT_FOUND, "This file is no longer available.") from exc
    headers = {"Cache-Control": f"private, max-age={expires}", "X-Content-Type-Options": "nosniff"}
    return FileResponse(path, media_type=meta.content_type, filename=meta.name, headers=headers)


def _store(request: Request) -> ServedFileStore:
    store = getattr(request.app.state, "files", None)
    if not isinstance(store, ServedFileStore):  # outputs live in object storage, links point there
        raise ApiError(ErrorKind.ROUTE_NOT_FOUND, "This deployment does not serve files; use the link in the task result.")
    return store


def _check_link(store: ServedFileStore, key: str, query: Mapping[str, str]) -> int:
    """Seconds the link stays valid; LINK_EXPIRED when it is expired or not authentic."""
    try:
        store.verify(key, query.get("expires", ""), query.get("sig", ""))
    except LinkExpired as exc:
        when = iso(int(query["expires"]))
        raise ApiError(ErrorKind.LINK_EXPIRED, f"This download link expired at {when}; output files are kept 24 hours.") from exc
    except LinkForged as exc:
        raise ApiError(ErrorKind.LINK_EXPIRED, "This download link is not valid; use the link from the task result.") from exc
    return max(0, int(query["expires"]) - int(time.time()))


def _locate(store: ServedFileStore, key: str) -> tuple[Path, StoredFile]:
    return store.open_path(key), store.describe(key)


ROUTES = [download_file]
