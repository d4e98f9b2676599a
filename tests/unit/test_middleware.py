"""Pure-ASGI middleware: streaming body cap, admission control, request ids."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from core.context import accept_or_create
from serve_app.middleware import AdmissionMiddleware, BodyLimitMiddleware, RequestContextMiddleware
from serve_app.responses import HANDLED, handle_exception, render, to_api_error

LIMIT = 64 * 1024


def make_app(seen: list[int], gate: asyncio.Event | None = None) -> Starlette:
    async def upload(request: Request) -> JSONResponse:
        total = 0
        async for chunk in request.stream():
            total += len(chunk)
            seen.append(total)
        return JSONResponse({"received": total})

    async def slow(request: Request) -> JSONResponse:
        assert gate is not None
        await gate.wait()
        return JSONResponse({"ok": True})

    async def boom(request: Request) -> JSONResponse:
        raise ZeroDivisionError("secret internal detail")

    app = Starlette(
        routes=[
            Route("/v1/game/upload", upload, methods=["POST"]),
            Route("/v1/video/translate", upload, methods=["POST"]),
            Route("/v1/slow", slow),
            Route("/v1/video/slow", slow),
            Route("/v1/boom", boom),
        ],
        exception_handlers={cls: handle_exception for cls in (Exception, HTTPException, *HANDLED)},
    )
    app.add_middleware(BodyLimitMiddleware, limit_for=lambda path, content_type: LIMIT)
    app.add_middleware(AdmissionMiddleware, max_inflight=2)
    app.add_middleware(RequestContextMiddleware)
    return app


def client(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False), base_url="http://t")


async def chunks(n: int, size: int = 8192) -> AsyncIterator[bytes]:
    for _ in range(n):
        yield b"x" * size


async def test_declared_oversize_refused_before_reading() -> None:
    seen: list[int] = []
    async with client(make_app(seen)) as c:
        response = await c.post("/v1/game/upload", content=b"x" * (LIMIT + 1))
    assert response.status_code == 413
    assert response.json()["code"] == 3001
    assert seen == []


async def test_streamed_oversize_cut_off_while_streaming() -> None:
    seen: list[int] = []
    async with client(make_app(seen)) as c:
        response = await c.post("/v1/game/upload", content=chunks(100))
    assert response.status_code == 413
    assert response.json()["code"] == 3001
    assert max(seen) <= LIMIT  # the app never got a byte past the cap


async def test_video_group_reports_video_too_large() -> None:
    async with client(make_app([])) as c:
        response = await c.post("/v1/video/translate", content=chunks(100))
    assert response.status_code == 400
    assert response.json()["code"] == "VIDEO_TOO_LARGE"


async def test_body_within_limit_passes() -> None:
    async with client(make_app([])) as c:
        response = await c.post("/v1/game/upload", content=chunks(4))
    assert response.json() == {"received": 4 * 8192}


async def test_invalid_content_length() -> None:
    async with client(make_app([])) as c:
        response = await c.post("/v1/game/upload", content=b"abc", headers={"Content-Length": "abc"})
    assert response.status_code == 400
    assert response.json()["code"] == 1001


async def test_admission_answers_503_with_retry_after() -> None:
    gate = asyncio.Event()
    async with client(make_app([], gate)) as c:
        held = [asyncio.create_task(c.get("/v1/slow")) for _ in range(2)]
        await asyncio.sleep(0.05)
        refused = await c.get("/v1/slow")
        gate.set()
        done = await asyncio.gather(*held)
    assert refused.status_code == 503
    assert refused.json()["code"] == 5002
    async with client(make_app([], gate := asyncio.Event())) as c:
        held = [asyncio.create_task(c.get("/v1/video/slow")) for _ in range(2)]
        await asyncio.sleep(0.05)
        busy = await c.get("/v1/video/slow")
        gate.set()
        await asyncio.gather(*held)
    assert busy.status_code == 503 and busy.json()["code"] == "SERVICE_BUSY" and busy.headers["retry-after"] == "1"
    assert refused.headers["retry-after"] == "1"
    assert [r.status_code for r in done] == [200, 200]


async def test_unhandled_exception_is_json_500_without_details() -> None:
    async with client(make_app([])) as c:
        response = await c.get("/v1/boom", headers={"X-Request-ID": "rid-1"})
    assert response.status_code == 500
    body = response.json()
    assert body == {"code": 5001, "message": body["message"], "request_id": "rid-1"}
    assert "secret" not in body["message"]
    assert response.headers["x-request-id"] == "rid-1"


@pytest.mark.parametrize("bad", [None, "", "a" * 129, "has space", "semi;colon", "new\nline"])
def test_bad_request_ids_are_replaced(bad: str | None) -> None:
    created = accept_or_create(bad)
    assert created != bad and len(created) == 32


def test_good_request_id_is_kept() -> None:
    assert accept_or_create("abc-DEF_1.2:3") == "abc-DEF_1.2:3"


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (RedisConnectionError("Connection refused"), 503, 5002),
        (RedisTimeoutError("Timeout reading from socket"), 503, 5002),
        (RecursionError("maximum recursion depth exceeded"), 400, 1001),
    ],
)
def test_outages_are_503_and_nesting_is_400(exc: Exception, status: int, code: int) -> None:
    error = to_api_error(exc)
    response = render("/v1/account", error)
    assert response.status_code == status
    assert json.loads(bytes(response.body))["code"] == code
    if status == 503:
        assert response.headers["retry-after"]
