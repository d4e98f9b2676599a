"""Pure ASGI middleware: request context, admission control and the body cap.

They are plain ASGI (not BaseHTTPMiddleware) so request bodies stream through
untouched: the body cap counts bytes as they arrive and stops an oversized
upload before it is ever held in memory.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.context import HEADER, accept_or_create, adopt_request_id, request_id_var
from core.errors import ApiError, ErrorKind
from serve_app.responses import BodyTooLarge, json_error, render, to_api_error

access_log = logging.getLogger("mediatrans.access")

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_ALWAYS_ADMITTED = frozenset({"/healthz", "/readyz"})
#: The one route whose body may carry a video (any body but these text ones; core.settings.BodyLimits).
_VIDEO_UPLOAD_PATH = "/v1/video/translate"
_TEXT_BODIES = frozenset({"application/json", "application/x-www-form-urlencoded"})


class RequestContextMiddleware:
    """Accepts or creates the request id, echoes it, writes the access log, and
    answers any exception that escaped the app with the JSON 500 body (it sits
    inside Starlette's server-error middleware, so the request id is still known).

    Under Ray Serve the proxy has already put an id in the request headers and
    echoes it itself, so ``echo=False`` there avoids a second header while the
    app uses the very same id when it is valid. The proxy takes any client value,
    so a given id is checked on every path (``core.context.accept_or_create``):
    an invalid one is replaced by a fresh id in the request headers, the error
    bodies, the log lines and the Serve calls made for the request. The replica's
    own access log already records method, route, status, latency and that id,
    so ``access_log=False`` avoids writing every request twice.
    """

    def __init__(self, app: ASGIApp, echo: bool = True, access_log: bool = True) -> None:
        self.app = app
        self.echo = echo
        self.access_log = access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get(HEADER)
        request_id = accept_or_create(given)  # never a client value unchecked, whoever set the header
        replaced = given is not None and request_id != given
        if replaced:
            MutableHeaders(scope=scope)[HEADER] = request_id
        # Behind the proxy Serve's request context still holds the given id: calls made from here carry the fresh one.
        token = adopt_request_id(request_id) if replaced and not self.echo else request_id_var.set(request_id)
        started = time.perf_counter()
        status = 500
        started_response = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, started_response
            if message["type"] == "http.response.start":
                status = message["status"]
                started_response = True
                if self.echo:
                    MutableHeaders(scope=message)[HEADER] = request_id
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception as exc:
            if started_response:
                raise
            await render(scope["path"], to_api_error(exc))(scope, receive, send_with_id)
        finally:
            if self.access_log:
                elapsed_ms = (time.perf_counter() - started) * 1000
                access_log.info("%s %s %d %.1fms", scope["method"], scope["path"], status, elapsed_ms)
            request_id_var.reset(token)


class TrailingSlashMiddleware:
    """``/v1/account/`` is ``/v1/account``: one answer per resource, never a redirect.

    Starlette would answer a 307 to the other spelling, which clients that do
    not follow redirects on POST see as an error; rewriting the path before
    routing makes both spellings the same request.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and len(path) > 1 and path.endswith("/"):
            scope = {**scope, "path": path.rstrip("/") or "/"}
            raw = scope.get("raw_path")
            if isinstance(raw, bytes):
                scope["raw_path"] = raw.rstrip(b"/") or b"/"
        await self.app(scope, receive, send)


class AdmissionMiddleware:
    """Refuses work beyond ``max_inflight`` concurrent requests with 503 + Retry-After.

    Serve's own ``max_queued_requests`` answers in plain text; refusing here
    keeps the contract's error body on overload while health probes still pass.
    """

    def __init__(self, app: ASGIApp, max_inflight: int) -> None:
        self.app = app
        self.max_inflight = max_inflight
        self.inflight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in _ALWAYS_ADMITTED:
            await self.app(scope, receive, send)
            return
        if self.inflight >= self.max_inflight:
            response = json_error(
                scope["path"], ErrorKind.UNAVAILABLE, "Service busy; retry shortly.", headers={"Retry-After": "1"}
            )
            await response(scope, receive, send)
            return
        self.inflight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.inflight -= 1


class BodyLimitMiddleware:
    """Caps request bodies per path while they stream in.

    The cap depends on the route and on whether the body is an upload
    (``limit_for(path, content_type)``). A declared ``Content-Length`` over the
    cap is refused before reading; a chunked or lying body is cut off as soon
    as the running count passes it.
    """

    def __init__(self, app: ASGIApp, limit_for: Callable[[str, str], int]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        content_type = headers.get("content-type", "")
        limit = self.limit_for(scope["path"], content_type)
        upload = _may_carry_video(scope["path"], content_type)
        declared = headers.get("content-length")
        early = _check_declared(declared, limit, upload)
        if early is not None:
            await render(scope["path"], early)(scope, receive, send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(_human(limit), upload=upload)
            return message

        await self.app(scope, counting_receive, send)


def _may_carry_video(path: str, content_type: str) -> bool:
    """Whether an oversized body is a video (``VIDEO_TOO_LARGE``) rather than a JSON or form body (413)."""
    media_type = content_type.split(";")[0].strip().lower()
    return path.rstrip("/") == _VIDEO_UPLOAD_PATH and media_type not in _TEXT_BODIES


def _check_declared(declared: str | None, limit: int, upload: bool) -> ApiError | None:
    if declared is None:
        return None
    if not declared.isdigit():
        return ApiError(ErrorKind.INVALID_PARAMETER, "Invalid Content-Length header.")
    if int(declared) > limit:
        return BodyTooLarge(_human(limit), upload=upload)
    return None


def _human(size: int) -> str:
    for unit, factor in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= factor:
            return f"{size / factor:g} {unit}"
    return f"{size} bytes"
