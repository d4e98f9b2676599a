"""A JSON body over its cap is 413 in every group; only a video upload is VIDEO_TOO_LARGE."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from core.settings import BodyLimits
from serve_app.bodies import read_json
from serve_app.middleware import BodyLimitMiddleware, RequestContextMiddleware
from serve_app.responses import HANDLED, handle_exception

REVISE = "/v1/video/task/t1/revise"
UPLOAD_LIMIT = 64 * 1024


def make_app() -> Starlette:
    async def json_body(request: Request) -> JSONResponse:
        return JSONResponse({"keys": len(await read_json(request))})

    async def upload(request: Request) -> JSONResponse:
        total = 0
        async for chunk in request.stream():
            total += len(chunk)
        return JSONResponse({"received": total})

    limits = BodyLimits()

    def limit_for(path: str, content_type: str) -> int:  # the real caps, a small one for uploads
        return UPLOAD_LIMIT if content_type.startswith("multipart/") else limits.for_request(path, content_type)

    app = Starlette(
        routes=[
            Route(REVISE, json_body, methods=["POST"]),
            Route("/v1/video/translate", upload, methods=["POST"]),
            Route("/v1/grammar", json_body, methods=["POST"]),
        ],
        exception_handlers={cls: handle_exception for cls in (Exception, HTTPException, *HANDLED)},
    )
    app.add_middleware(BodyLimitMiddleware, limit_for=limit_for)
    app.add_middleware(RequestContextMiddleware)
    return app


def client(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False), base_url="http://t")


def big_json(size: int) -> bytes:
    return json.dumps({"segments": [{"id": 1, "translation": "x" * size}]}).encode()


async def streamed(data: bytes, size: int = 65536) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
async def test_a_revise_body_over_1_mib_is_413_not_video_too_large(declared: bool) -> None:
    data = big_json(1 << 20)
    async with client(make_app()) as c:
        response = await c.post(
            REVISE, content=data if declared else streamed(data), headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 413
    assert response.json()["code"] == "PAYLOAD_TOO_LARGE"
    assert response.json()["message"] == "Request body exceeds the limit of 1 MB."


async def test_a_revise_body_under_the_cap_is_read() -> None:
    async with client(make_app()) as c:
        response = await c.post(REVISE, content=big_json(1000), headers={"Content-Type": "application/json"})
    assert response.status_code == 200 and response.json() == {"keys": 1}


async def test_a_video_url_json_body_over_its_cap_is_413_too() -> None:
    async with client(make_app()) as c:
        response = await c.post(
            "/v1/video/translate", content=streamed(big_json(1 << 20)), headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 413 and response.json()["code"] == "PAYLOAD_TOO_LARGE"


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
async def test_a_video_upload_over_its_cap_is_still_video_too_large(declared: bool) -> None:
    data = b"x" * (UPLOAD_LIMIT + 1)
    async with client(make_app()) as c:
        response = await c.post(
            "/v1/video/translate",
            content=data if declared else streamed(data, 8192),
            headers={"Content-Type": "multipart/form-data; boundary=b"},
        )
    assert response.status_code == 400 and response.json()["code"] == "VIDEO_TOO_LARGE"


async def test_a_numeric_group_json_body_over_its_cap_stays_413_3001() -> None:
    async with client(make_app()) as c:
        response = await c.post("/v1/grammar", content=big_json(700 * 1024), headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and response.json()["code"] == 3001
    assert "640 KB" in response.json()["message"]
