"""The Starlette application implementing ``/v1`` (no Ray needed to build it)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware

from core.context import configure_logging
from serve_app.middleware import (
    AdmissionMiddleware,
    BodyLimitMiddleware,
    RequestContextMiddleware,
    TrailingSlashMiddleware,
)
from serve_app.ratelimit_headers import RateLimitHeadersMiddleware
from serve_app.request_metrics import RequestMetricsMiddleware
from serve_app.responses import HANDLED, handle_exception
from serve_app.routes import (
    account,
    added_languages,
    files,
    game,
    glossaries,
    grammar,
    languages,
    memories,
    revisions,
    subtitles,
    system,
    tts,
    video,
    voice,
)
from serve_app.routing import resources
from serve_app.services import Services

ROUTE_MODULES = (
    languages,
    account,
    glossaries,
    memories,
    game,
    grammar,
    video,
    revisions,
    added_languages,
    subtitles,
    voice,
    tts,
    files,
    system,
)


def create_app(services: Services, *, behind_serve_proxy: bool = False) -> Starlette:
    configure_logging(services.args.log_level)
    routes = resources([route for module in ROUTE_MODULES for route in module.ROUTES])
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(TrailingSlashMiddleware),
            Middleware(RequestMetricsMiddleware),
            Middleware(RateLimitHeadersMiddleware),
            Middleware(RequestContextMiddleware, echo=not behind_serve_proxy, access_log=not behind_serve_proxy),
            Middleware(AdmissionMiddleware, max_inflight=services.args.max_inflight_requests),
            Middleware(BodyLimitMiddleware, limit_for=services.args.body_limits.for_request),
        ],
        exception_handlers={cls: handle_exception for cls in (Exception, HTTPException, *HANDLED)},
    )
    app.state.services = services
    app.state.files = services.files
    return app
