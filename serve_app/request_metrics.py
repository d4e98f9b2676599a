"""Per-request metrics: endpoint group, status, contract error code, latency, calling account."""

from __future__ import annotations

import json
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core import metrics

#: The ``/v1/<group>`` segments counted under their own name; every other path is ``other``.
GROUPS = frozenset({"languages", "account", "glossaries", "memories", "game", "grammar", "video", "files", "voice", "tts"})
_SYSTEM = {"/healthz": "health", "/readyz": "health", "/docs": "docs", "/openapi.json": "docs"}
_MAX_ERROR_BODY = 4096


def endpoint_group(path: str) -> str:
    """A bounded label for ``path``: the API area, never the raw path (ids would explode the series)."""
    if path in _SYSTEM:
        return _SYSTEM[path]
    parts = path.split("/", 3)
    if len(parts) >= 3 and parts[1] == "v1" and parts[2] in GROUPS:
        return parts[2]
    return "other"


def error_code(body: bytes) -> str:
    """The contract code of a JSON error body, or ``unknown``."""
    try:
        code = json.loads(body[:_MAX_ERROR_BODY]).get("code")
    except (ValueError, AttributeError):
        return "unknown"
    return str(code) if code is not None else "unknown"


class RequestMetricsMiddleware:
    """Counts every answered request; sits outermost so rendered 500s and refusals are counted too."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        code = ""
        awaiting_error_body = False

        async def observe(message: Message) -> None:
            nonlocal status, code, awaiting_error_body
            if message["type"] == "http.response.start":
                status = message["status"]
                awaiting_error_body = status >= 400
            elif message["type"] == "http.response.body" and awaiting_error_body:
                code = error_code(message.get("body", b""))
                awaiting_error_body = False
            await send(message)

        try:
            await self.app(scope, receive, observe)
        finally:
            group = endpoint_group(scope["path"])
            if status >= 400 and not code:
                code = "unknown"
            metrics.http_request(group, scope["method"], status, code, time.perf_counter() - started)
            account = scope.get("state", {}).get("account")
            if account is not None:
                metrics.account_request(account.id, group)
