"""Guards that run in Ray Serve's HTTP proxy, in front of the ingress: slow clients and request ids.

Ray Serve's proxy (uvicorn) bounds neither the time a client takes to send its request headers nor the
time between two pieces of its body, so a client that trickles a request holds a connection, and once its
headers are in, one of the ingress's request slots, for as long as it likes. Serve loads these guards
through its proxy callback, ``RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH=serve_app.proxy_guard:middlewares``
(set by ``cluster/local/ray-env.sh`` and the KubeRay manifests):

* **Headers**: a connection that has not sent a whole request head within ``HEADER_TIMEOUT_S`` of
  connecting (or of its previous response) is answered ``408`` with the project's JSON error body and
  closed.
* **Body**: a request whose body makes no progress (no new bytes) for ``BODY_IDLE_TIMEOUT_S`` is answered
  ``408`` (when no response has started), the application sees the client as gone, and the slot is freed.
* **Request ids**: an ``X-Request-ID`` that is not 1 to 128 characters of ``[A-Za-z0-9._:-]`` is replaced by
  a fresh id before Serve's own request-id middleware echoes it or logs it.

The numbers are documented in docs/errors.md ("Slow clients").
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from typing import Any

from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.context import is_valid
from core.errors import ErrorKind, error_body, group_for_path, resolve

#: Seconds a connection may take to send a whole request head (``MEDIATRANS_HEADER_TIMEOUT_S``).
HEADER_TIMEOUT_S = float(os.environ.get("MEDIATRANS_HEADER_TIMEOUT_S", "30"))
#: Seconds a request body may go without new bytes (``MEDIATRANS_BODY_IDLE_TIMEOUT_S``).
BODY_IDLE_TIMEOUT_S = float(os.environ.get("MEDIATRANS_BODY_IDLE_TIMEOUT_S", "30"))

_TIMEOUT_MESSAGE = "The request was not received in time; send it again without pausing."


def timeout_body(path: str) -> tuple[int, bytes]:
    """The status and JSON body of a request that timed out while ``path`` was being received."""
    status, code = resolve(group_for_path(path), ErrorKind.REQUEST_TIMEOUT)
    return status, json.dumps(error_body(code, _TIMEOUT_MESSAGE, uuid.uuid4().hex)).encode()


class RequestIdGuard:
    """Replaces an unusable ``X-Request-ID`` with a fresh one before anything reads it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"x-request-id"]
            given = [v for k, v in scope["headers"] if k.lower() == b"x-request-id"]
            value = given[0].decode("latin-1") if len(given) == 1 else None
            if given and not is_valid(value):
                scope = {**scope, "headers": [*headers, (b"x-request-id", uuid.uuid4().hex.encode())]}
        await self.app(scope, receive, send)


class BodyReadTimeout:
    """Answers 408 and tells the application the client is gone when a body stalls."""

    def __init__(self, app: ASGIApp, idle_timeout_s: float = BODY_IDLE_TIMEOUT_S) -> None:
        self.app = app
        self.idle_timeout_s = idle_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = {"started": False, "timed_out": False, "body_done": False}

        async def guarded_receive() -> Message:
            if state["timed_out"]:
                return {"type": "http.disconnect"}
            if state["body_done"]:
                return await receive()  # after the body: only the client's disconnect, however late
            try:
                message = await asyncio.wait_for(receive(), self.idle_timeout_s)
            except TimeoutError:
                state["timed_out"] = True
                return {"type": "http.disconnect"}
            if message["type"] == "http.request" and not message.get("more_body", False):
                state["body_done"] = True
            return message

        async def tracked_send(message: Message) -> None:
            if state["timed_out"] and not state["started"]:
                return  # the 408 below is the answer
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        try:
            await self.app(scope, guarded_receive, tracked_send)
        except Exception:
            if not state["timed_out"] or state["started"]:
                raise  # the application read the client as gone (ClientDisconnect): the 408 below answers
        if state["timed_out"] and not state["started"]:
            status, body = timeout_body(scope.get("path", ""))
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})


def install_header_timeout(timeout_s: float = HEADER_TIMEOUT_S) -> list[str]:
    """Close connections of this process's uvicorn servers that do not send a request head in time.

    uvicorn (the server inside Serve's proxy) times out only idle keep-alive connections, after a response;
    a head that never finishes is waited for forever. This starts a timer when a connection is made and when
    the first bytes of a later head arrive, and stops it once the head has been parsed. A connection that sent
    part of a head is answered 408 (JSON) and closed; one that sent nothing is closed. Returns the protocol
    classes it guards (both of uvicorn's HTTP/1.1 implementations).
    """
    guarded = []
    for protocol in _uvicorn_protocols():
        if getattr(protocol, "_mediatrans_header_timeout", None) is None:
            _guard(protocol)
        protocol._mediatrans_header_timeout = timeout_s
        guarded.append(protocol.__name__)
    return guarded


def _uvicorn_protocols() -> list[Any]:
    found: list[Any] = []
    try:
        from uvicorn.protocols.http.h11_impl import H11Protocol

        found.append(H11Protocol)
    except ImportError:
        pass
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        found.append(HttpToolsProtocol)
    except ImportError:
        pass
    return found


def _serving(connection: Any) -> bool:
    """A request head has been parsed and its response is not complete."""
    cycle = getattr(connection, "cycle", None)
    return cycle is not None and not cycle.response_complete


def _guard(protocol: Any) -> None:
    made, lost = protocol.connection_made, protocol.connection_lost
    received, complete = protocol.data_received, protocol.on_response_complete

    def arm(self: Any) -> None:
        disarm(self)
        self._mediatrans_head_timer = self.loop.call_later(protocol._mediatrans_header_timeout, expire, self)

    def disarm(self: Any) -> None:
        timer = getattr(self, "_mediatrans_head_timer", None)
        if timer is not None:
            timer.cancel()
        self._mediatrans_head_timer = None

    def expire(self: Any) -> None:
        self._mediatrans_head_timer = None
        if _serving(self) or self.transport.is_closing():
            return  # a request is being served: its body is the body guard's
        if getattr(self, "_mediatrans_partial_head", False):
            status, body = timeout_body("")
            head = f"HTTP/1.1 {status} Request Timeout\r\ncontent-type: application/json\r\n"
            head += f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
            self.transport.write(head.encode() + body)
        self.transport.close()

    def connection_made(self: Any, transport: Any) -> None:
        made(self, transport)
        self._mediatrans_partial_head = False
        arm(self)

    def data_received(self: Any, data: bytes) -> None:
        between_requests = not _serving(self)
        received(self, data)
        if _serving(self):
            disarm(self)
        elif between_requests:
            self._mediatrans_partial_head = True
            if getattr(self, "_mediatrans_head_timer", None) is None:
                arm(self)

    def on_response_complete(self: Any) -> None:
        complete(self)
        disarm(self)  # idle now: uvicorn's keep-alive timeout applies until the next head starts
        self._mediatrans_partial_head = False

    def connection_lost(self: Any, exc: Exception | None) -> None:
        disarm(self)
        lost(self, exc)

    protocol.connection_made = connection_made
    protocol.data_received = data_received
    protocol.on_response_complete = on_response_complete
    protocol.connection_lost = connection_lost


def middlewares() -> list[Middleware]:
    """Serve's proxy callback: installs the header timeout, returns the proxy's middlewares.

    Serve wraps its own request-id middleware first and each of these around it, so both run before it.
    """
    install_header_timeout()
    return [Middleware(RequestIdGuard), Middleware(BodyReadTimeout)]
