"""Liveness, readiness and the API documentation."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from serve_app.auth import services_of
from serve_app.openapi import openapi_document, render_docs_page

READY_TIMEOUT_S = 5.0


async def healthz(request: Request) -> JSONResponse:
    """Alive: the process answers."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    """Ready: Redis answers and every capability deployment reports healthy."""
    services = services_of(request)
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
    return JSONResponse({"status": "ready" if ready else "not_ready", "checks": checks}, status_code=200 if ready else 503)


async def openapi_json(request: Request) -> JSONResponse:
    return JSONResponse(openapi_document(request.app.routes))


async def docs_page(request: Request) -> HTMLResponse:
    return HTMLResponse(render_docs_page(openapi_document(request.app.routes)))


ROUTES = [
    Route("/healthz", healthz, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
    Route("/openapi.json", openapi_json, methods=["GET"]),
    Route("/docs", docs_page, methods=["GET"]),
]
