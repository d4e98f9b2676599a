"""X-Request-ID: a client value is used only when valid, on every path (also behind Serve's proxy)."""

from __future__ import annotations

import contextvars

import httpx
import pytest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from core.context import accept_or_create, current_request_id, request_id_var
from core.errors import ApiError, ErrorKind
from serve_app.middleware import RequestContextMiddleware
from serve_app.responses import HANDLED, handle_exception

BAD = ["<script>alert(1)</script>", "a" * 5000, "a" * 129, "has space", "x\ty", "semi;colon"]


def make_app(echo: bool) -> Starlette:
    async def seen(request: Request) -> JSONResponse:
        from ray.serve.context import _serve_request_context

        return JSONResponse(
            {
                "var": request_id_var.get(),
                "header": request.headers.get("x-request-id"),
                "serve": getattr(_serve_request_context.get(), "request_id", None),
            }
        )

    async def fail(request: Request) -> JSONResponse:
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Nope.")

    app = Starlette(
        routes=[Route("/v1/seen", seen), Route("/v1/fail", fail)],
        exception_handlers={cls: handle_exception for cls in (Exception, HTTPException, *HANDLED)},
    )
    app.add_middleware(RequestContextMiddleware, echo=echo, access_log=False)
    return app


def client(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False), base_url="http://t")


def is_fresh(value: str, given: str) -> bool:
    return value != given and len(value) == 32 and value.isalnum()


@pytest.mark.parametrize("echo", [True, False], ids=["direct", "behind-serve-proxy"])
@pytest.mark.parametrize("bad", BAD, ids=lambda v: v[:12])
async def test_an_invalid_request_id_is_replaced_everywhere(echo: bool, bad: str) -> None:
    headers = {"X-Request-ID": bad}
    async with client(make_app(echo)) as c:
        seen = (await c.get("/v1/seen", headers=headers)).json()
        failed = await c.get("/v1/fail", headers=headers)
    assert is_fresh(seen["var"], bad)
    assert seen["header"] == seen["var"]  # the request's own header no longer carries the client value
    body = failed.json()
    assert is_fresh(body["request_id"], bad)
    if echo:
        assert failed.headers["x-request-id"] == body["request_id"]
    else:
        assert seen["serve"] == seen["var"]  # calls made for the request carry the fresh id
        assert "x-request-id" not in failed.headers  # Serve's proxy adds the header there


@pytest.mark.parametrize("echo", [True, False], ids=["direct", "behind-serve-proxy"])
async def test_a_valid_request_id_is_kept(echo: bool) -> None:
    async with client(make_app(echo)) as c:
        seen = (await c.get("/v1/seen", headers={"X-Request-ID": "abc-DEF_1.2:3"})).json()
        failed = await c.get("/v1/fail", headers={"X-Request-ID": "abc-DEF_1.2:3"})
    assert seen["var"] == seen["header"] == "abc-DEF_1.2:3"
    assert failed.json()["request_id"] == "abc-DEF_1.2:3"


def test_a_trailing_newline_is_not_a_valid_id() -> None:
    assert accept_or_create("abc\n") != "abc\n"  # ``$`` alone would match before a final newline
    assert accept_or_create("a" * 128) == "a" * 128


def test_a_serve_carried_id_is_logged_only_when_valid() -> None:
    from ray.serve.context import _set_request_context

    def carried(value: str) -> str:
        _set_request_context(request_id=value)
        return current_request_id()

    assert contextvars.copy_context().run(carried, "<script>x</script>") == "-"
    assert contextvars.copy_context().run(carried, "serve-id-1") == "serve-id-1"
