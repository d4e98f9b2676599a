"""Liveness, readiness and the API documentation."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from serve_app.auth import services_of
from serve_app.docs_page import render_docs_page
from serve_app.openapi import openapi_document
from serve_app.services import Services

READY_TIMEOUT_S = 5.0


async def healthz(request: Request) -> JSONResponse:
    """Alive: the process answers."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    """Ready: Redis answers and every capability deployment reports healthy.

    Unauthenticated and fanning out to every deployment, so one answer is
    reused for ``readiness_cache_s`` seconds: probes cannot multiply load.
    """
    services = services_of(request)
    cache = services.readiness
    body, status = await cache.get(lambda: _check_readiness(services))
    return JSONResponse(body, status_code=status)


async def _check_readiness(services: Services) -> tuple[dict[str, Any], int]:
    checks: dict[str, str] = {}
    try:
        await asyncio.wait_for(services.redis.ping(), READY_TIMEOUT_S)
        checks["redis"] = "ok"
    except Exception as exc:
        checks["redis"] = f"error: {type(exc).__name__}"
    for name, handle in services.handles.items():
        try:
            await asyncio.wait_for(handle.ready.remote(), READY_TIMEOUT_S)
            checks[name] = "ok"
        except Exception as exc:
            checks[name] = f"error: {type(exc).__name__}"
    ready = all(v == "ok" for v in checks.values())
    body = {"status": "ready" if ready else "not_ready", "checks": checks, "checked_at": round(time.time(), 3)}
    return body, 200 if ready else 503


@dataclasses.dataclass(frozen=True)
class Rendered:
    """A response body rendered once per replica, with its ETag."""

    body: bytes
    media_type: str
    etag: str

    @classmethod
    def of(cls, body: bytes, media_type: str) -> Rendered:
        return cls(body, media_type, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')

    def respond(self, request: Request) -> Response:
        headers = {"ETag": self.etag, "Cache-Control": "public, max-age=300"}
        if self.etag in (tag.strip() for tag in request.headers.get("if-none-match", "").split(",")):
            return Response(status_code=304, headers=headers)
        return Response(self.body, media_type=self.media_type, headers=headers)


def _api_documents(request: Request) -> dict[str, Rendered]:
    """The OpenAPI document and the docs page: they change only with the code, so they are built on first use."""
    documents: dict[str, Rendered] | None = getattr(request.app.state, "api_documents", None)
    if documents is None:
        document = openapi_document(request.app.routes, services_of(request).catalog.accepted_codes)
        documents = request.app.state.api_documents = {
            "openapi": Rendered.of(json.dumps(document, ensure_ascii=False).encode(), "application/json"),
            "page": Rendered.of(render_docs_page(document).encode(), "text/html; charset=utf-8"),
        }
    return documents


async def openapi_json(request: Request) -> Response:
    return _api_documents(request)["openapi"].respond(request)


async def docs_page(request: Request) -> Response:
    return _api_documents(request)["page"].respond(request)


ROUTES = [
    Route("/healthz", healthz, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
    Route("/openapi.json", openapi_json, methods=["GET"]),
    Route("/docs", docs_page, methods=["GET"]),
]
