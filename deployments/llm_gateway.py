"""The GPU profile's LLM application: Ray Serve LLM's OpenAI app, internal-only.

``ray.serve.llm:build_openai_app`` takes no API key and no middleware: its
FastAPI app is made inside the builder, and the only hook, a custom ingress
class, cannot reach that app. ``build_gpu_app`` builds the stock application
and swaps its ingress class for a subclass that wraps whatever ASGI app the
replica ends up serving (the FastAPI router, or vLLM's app when the ingress
is late-bound) in two layers:

- ``ServiceKeyMiddleware``: every path needs ``Authorization: Bearer <key>``,
  the key being ``MEDIATRANS_LLM_KEY`` of the replica's environment (the
  ``mediatrans-app`` Secret in KubeRay); without one, every request is refused;
- ``ErrorScrubber``: error bodies keep OpenAI's shape but lose what Serve LLM
  appends to every message (``Internal exception: ...``, ``original exception:
  ...``, which for a fault in an engine replica is Ray's remote traceback).

The args are ``build_openai_app``'s (``llm_configs``, ...), unchanged. The
completion budget is bounded by vLLM itself: a request whose prompt plus
``max_tokens`` exceeds the model's ``max_model_len`` is answered 400.
"""

from __future__ import annotations

import http
import json
import logging
import re
from typing import Any, cast

from ray.serve import Application

from engines.llm.service_key import (
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    ServiceKeyMiddleware,
    configured_key,
    warn_if_missing,
)

log = logging.getLogger(__name__)

#: Longest error message passed on; longer ones are replaced by the status phrase.
MAX_MESSAGE_CHARS = 300

#: Error bodies read past this size are dropped unread: the client gets the status phrase.
MAX_ERROR_BODY_BYTES = 64 << 10

#: What a message must not carry: Ray's task frames, tracebacks, source paths, process ids, colour codes.
_INTERNALS = re.compile(
    r"ray::|Traceback|File \"|site-packages|pid=|actor_id|\x1b\[|(?:^|[\s(:'\"])/(?:[\w.-]+/)+[\w.-]*\.py",
)

#: Where Serve LLM's own message ends and its internal details begin.
_SERVE_LLM_TAIL = re.compile(r", (?:Internal|original) exception: ")

#: OpenAI's error ``type`` for each status family.
_KINDS = {401: "authentication_error", 403: "permission_error", 429: "rate_limit_error"}


def build_gpu_app(args: dict[str, Any]) -> Application:
    """Serve application builder named by ``import_path`` in configs/gpu-cluster.yaml."""
    from ray.serve.llm import build_openai_app  # needs vLLM, which only the GPU image installs

    return guard_application(build_openai_app(args))


def guard_application(app: Application) -> Application:
    """``app`` with its ingress deployment's class replaced by ``guard_ingress`` of it, options and args kept."""
    ingress = app._bound_deployment
    ingress_cls = cast(type, ingress.func_or_class)  # Serve types it Callable | str; an ingress deployment is a class
    guarded = Application(ingress.options(func_or_class=guard_ingress(ingress_cls)))
    router = app._ingress_request_router
    return guarded if router is None else guarded._with_ingress_request_router(router)


def guard_ingress(ingress_cls: type[Any]) -> type[Any]:
    """A subclass of a Serve ingress class whose ASGI app needs the service key and answers clean errors.

    Serve hands every ingress app, given at build time or made at replica
    start, to ``_set_asgi_app``; wrapping it there covers both.
    """

    def _set_asgi_app(self: Any, app: ASGIApp) -> None:
        ingress_cls._set_asgi_app(self, protect(app))

    return type(ingress_cls.__name__, (ingress_cls,), {"_set_asgi_app": _set_asgi_app, "__module__": __name__})


def protect(app: ASGIApp) -> ASGIApp:
    """``app`` behind the service key of this process's environment, with scrubbed error bodies."""
    key = configured_key()
    warn_if_missing(key)
    return ServiceKeyMiddleware(ErrorScrubber(app), key=key)


def clean_error(status: int, raw: bytes) -> dict[str, Any]:
    """An OpenAI error body for ``status`` whose message is the upstream one only when it is safe to show."""
    message = ""
    try:
        found = json.loads(raw)["error"]["message"]
        message = found if isinstance(found, str) else ""
    except (ValueError, KeyError, TypeError):
        pass
    # Serve LLM writes "Message: <m>, Internal exception: <...>, original exception: <...>".
    message = _SERVE_LLM_TAIL.split(message.removeprefix("Message: "), maxsplit=1)[0].strip()
    if not message or len(message) > MAX_MESSAGE_CHARS or "\n" in message or _INTERNALS.search(message):
        message = _phrase(status)
    kind = _KINDS.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": status}}


def _phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase.lower()
    except ValueError:
        return "error"


class ErrorScrubber:
    """Passes successful responses through untouched and rewrites error bodies (status 400 and up)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: dict[str, Any] = {}
        sent = {"started": False}
        body = bytearray()

        async def scrub(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] >= 400:
                held["start"] = message
                return
            if message["type"] != "http.response.body" or "start" not in held:
                sent["started"] = sent["started"] or message["type"] == "http.response.start"
                await send(message)
                return
            if len(body) <= MAX_ERROR_BODY_BYTES:
                body.extend(message.get("body", b""))
            if not message.get("more_body", False):
                sent["started"] = True
                await _send_clean(send, held.pop("start"), bytes(body) if len(body) <= MAX_ERROR_BODY_BYTES else b"")

        try:
            await self.app(scope, receive, scrub)
        except Exception:
            if sent["started"]:
                raise
            log.exception("LLM request failed before it was answered")
            await _send_clean(send, held.get("start") or {"status": 500}, b"")


async def _send_clean(send: Send, start: Message, raw: bytes) -> None:
    status = int(start["status"])
    body = json.dumps(clean_error(status, raw)).encode()
    kept = [(k, v) for k, v in start.get("headers", []) if k.lower() not in (b"content-length", b"content-type")]
    headers = [*kept, (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
