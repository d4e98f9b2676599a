"""Per-route body caps (BodyLimits.for_request) and one spelling per path (TrailingSlashMiddleware)."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from core.settings import BodyLimits
from serve_app.middleware import BodyLimitMiddleware, TrailingSlashMiddleware

LIMITS = BodyLimits()
MULTIPART = "multipart/form-data; boundary=x"


@pytest.mark.parametrize(
    ("path", "content_type", "at_least", "at_most"),
    [
        ("/v1/voice/clone", "application/json", 4 << 10, 64 << 10),  # a URL and a few fields
        ("/v1/voice/clone/voice_0123456789abcdef0123", "application/json", 1 << 10, 64 << 10),
        ("/v1/voice/clone", MULTIPART, 50 * 1000 * 1000, 52 << 20),  # a 50 MB sample
        ("/v1/tts", "application/json", 60_000, 128 << 10),  # 5,000 characters, each up to 12 bytes escaped
        ("/v1/grammar", "application/json", 600_000, 1 << 20),  # 50,000 characters
        ("/v1/game/localization", "application/json", 600_000, 1 << 20),
        ("/v1/game/localization/", "application/json", 600_000, 1 << 20),
        ("/v1/video/translate", MULTIPART, 500 << 20, 502 << 20),
    ],
)
def test_each_route_gets_what_its_largest_input_needs(path: str, content_type: str, at_least: int, at_most: int) -> None:
    assert at_least <= LIMITS.for_request(path, content_type) <= at_most


def test_a_voice_json_body_cannot_claim_the_upload_cap() -> None:
    assert LIMITS.for_request("/v1/voice/clone", "application/json") < LIMITS.for_request("/v1/voice/clone", MULTIPART) // 1000


def app() -> Starlette:
    async def echo(request: Request) -> JSONResponse:
        return JSONResponse({"path": request.url.path, "body": len(await request.body())})

    routes = [Route("/v1/account", echo, methods=["GET", "POST"]), Route("/", echo)]
    application = Starlette(routes=routes)
    application.add_middleware(BodyLimitMiddleware, limit_for=LIMITS.for_request)
    application.add_middleware(TrailingSlashMiddleware)
    return application


@pytest.mark.parametrize("path", ["/v1/account", "/v1/account/", "/v1/account//"])
async def test_a_trailing_slash_is_the_same_resource_without_a_redirect(path: str) -> None:
    transport = httpx.ASGITransport(app=app())
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        response = await client.post(path, content=b"{}", headers={"Content-Type": "application/json"})
        root = await client.get("/")
    assert response.status_code == 200
    assert response.json() == {"path": "/v1/account", "body": 2}
    assert root.status_code == 200 and root.json()["path"] == "/"
