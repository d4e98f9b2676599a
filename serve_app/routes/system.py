"""Liveness, readiness and the API documentation."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from serve_app.auth import services_of
from serve_app.openapi import openapi_document, render_docs_page
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


async def openapi_json(request: Request) -> JSONResponse:
    return JSONResponse(openapi_document(request.app.routes, services_of(request).catalog.accepted_codes))


async def docs_page(request: Request) -> HTMLResponse:
    return HTMLResponse(render_docs_page(openapi_document(request.app.routes, services_of(request).catalog.accepted_codes)))


ROUTES = [
    Route("/healthz", healthz, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
    Route("/openapi.json", openapi_json, methods=["GET"]),
    Route("/docs", docs_page, methods=["GET"]),
]
