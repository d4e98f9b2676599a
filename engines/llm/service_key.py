"""The service key that keeps the OpenAI-compatible LLM endpoint internal.

Only the service's own engines may call ``/llm/v1``: they send the key as
``Authorization: Bearer <key>``. The key comes from ``MEDIATRANS_LLM_KEY``
(``make run`` creates ``var/llm.key`` once and exports it before Ray starts;
KubeRay reads it from the ``mediatrans-app`` Secret), or from a server's own
arguments. ``ServiceKeyMiddleware`` guards a whole ASGI app, every path of
it, so routes added later are covered too; without a configured key it
refuses everything rather than serve an open endpoint.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

log = logging.getLogger(__name__)

#: Where the server and its clients read the key.
ENV_VAR = "MEDIATRANS_LLM_KEY"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: One answer for a missing key, a wrong key and a server with no key: none tells a caller more than another.
REFUSAL = {
    "error": {
        "message": "a valid service key is required (Authorization: Bearer <key>)",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }
}


def configured_key(explicit: str | None = None) -> str | None:
    """The key: ``explicit`` when given, else ``MEDIATRANS_LLM_KEY``; None when neither holds one."""
    value = explicit if explicit is not None else os.environ.get(ENV_VAR, "")
    return value.strip() or None


def bearer_header(key: str | None) -> dict[str, str]:
    """The header a client sends with ``key``; none without a key."""
    return {"Authorization": f"Bearer {key}"} if key else {}


def presented_key(scope: Scope) -> bytes | None:
    """The bearer token of a request's ``Authorization`` header, if it has one."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"authorization":
            scheme, _, token = bytes(value).strip().partition(b" ")
            return token.strip() if scheme.lower() == b"bearer" and token.strip() else None
    return None


def warn_if_missing(key: str | None) -> None:
    """Say once, when a server starts, that it has no key and so will refuse everything."""
    if not key:
        log.warning("LLM endpoint has no service key (%s is unset): every request will be refused with 401", ENV_VAR)


class ServiceKeyMiddleware:
    """Answers 401 in OpenAI's error shape to any request without the key.

    The comparison is ``hmac.compare_digest``, so how long a wrong key took
    to refuse says nothing about how much of it was right.
    """

    def __init__(self, app: ASGIApp, *, key: str | None) -> None:
        self.app = app
        self._key = key.encode() if key else None

    def allows(self, scope: Scope) -> bool:
        token = presented_key(scope)
        return self._key is not None and token is not None and hmac.compare_digest(token, self._key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.allows(scope):
            await _refuse(send)
            return
        if scope["type"] == "websocket" and not self.allows(scope):
            await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)


async def _refuse(send: Send) -> None:
    body = json.dumps(REFUSAL).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", b"Bearer"),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})
