"""``X-RateLimit-*`` on every authenticated response of the real app: success, streamed, refused, failed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from redis.asyncio import Redis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from core import keys
from core.accounts import AccountStore
from core.errors import ApiError, ErrorKind
from core.settings import AppArgs
from serve_app.asgi import create_app
from serve_app.auth import authenticate
from serve_app.services import Services

HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")


async def _ok(request: Request) -> JSONResponse:
    await authenticate(request)
    return JSONResponse({"ok": True})


async def _streamed(request: Request) -> StreamingResponse:
    await authenticate(request)

    async def body() -> AsyncIterator[bytes]:
        for _ in range(3):
            yield b"chunk"

    return StreamingResponse(body(), media_type="audio/pcm")


async def _refused(request: Request) -> JSONResponse:
    await authenticate(request)
    raise ApiError(ErrorKind.NOT_FOUND, "No such thing.")


async def _crashes(request: Request) -> JSONResponse:
    await authenticate(request)
    raise ZeroDivisionError("an escaped bug")


SHAPES = {"ok": _ok, "streamed": _streamed, "refused": _refused, "crashes": _crashes}


@pytest.fixture
async def app(redis_client: Redis, redis_url: str, tmp_path: Path) -> AsyncIterator[Starlette]:
    args = AppArgs.model_validate({"redis_url": redis_url, "storage": {"root_dir": str(tmp_path / "files")}})
    services = Services.create(args, handles={}, probes={})
    app = create_app(services)
    # Routes of every response shape, each after the real authentication (no TTS deployment: POST /v1/tts answers 503).
    app.router.routes.extend(Route(f"/v1/game/{name}", endpoint) for name, endpoint in SHAPES.items())
    yield app
    await services.redis.aclose()


async def _token(redis: Redis, **limits: int) -> tuple[str, dict[str, str]]:
    store = AccountStore(redis)
    account = await store.create("acct-under-test", **limits)
    issued = await store.issue_token(account)
    return account.id, {"Authorization": f"Bearer {issued.token}"}


def _client(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False), base_url="http://t")


def _limits(response: httpx.Response) -> tuple[int, int, int]:
    limit, remaining, reset = (int(response.headers[name]) for name in HEADERS)
    return limit, remaining, reset


async def test_every_response_shape_carries_the_headers(app: Starlette, redis_client: Redis) -> None:
    _, auth = await _token(redis_client, rate_per_minute=6, burst=10)
    async with _client(app) as client:
        ok = await client.get("/v1/game/ok", headers=auth)
        streamed = await client.get("/v1/game/streamed", headers=auth)
        refused = await client.get("/v1/game/refused", headers=auth)
        crashed = await client.get("/v1/game/crashes", headers=auth)
        unavailable = await client.post("/v1/tts", json={"text": "Hello.", "lang": "en"}, headers=auth)
    assert (ok.status_code, streamed.status_code, refused.status_code) == (200, 200, 404)
    assert streamed.content == b"chunk" * 3
    assert crashed.status_code == 500 and crashed.json()["code"] == 5001
    assert unavailable.status_code == 503
    answers = [ok, streamed, refused, crashed, unavailable]
    # 6/min with a burst of 10: each request uses one of the burst and 10 s of the bucket.
    assert [_limits(r)[1] for r in answers] == [9, 8, 7, 6, 5]
    assert all(_limits(r)[0] == 6 for r in answers)
    assert [_limits(r)[2] for r in answers] == [10, 20, 30, 40, 50]


async def test_rate_limited_answer_keeps_retry_after_and_says_zero_remaining(app: Starlette, redis_client: Redis) -> None:
    _, auth = await _token(redis_client, rate_per_minute=2, burst=2)
    async with _client(app) as client:
        answers = [await client.get("/v1/game/ok", headers=auth) for _ in range(3)]
    assert [r.status_code for r in answers] == [200, 200, 429]
    refused = answers[-1]
    assert refused.json()["code"] == 4001
    retry_after = int(refused.headers["retry-after"])
    limit, remaining, reset = _limits(refused)
    assert (limit, remaining) == (2, 0)
    # One request frees up in ~30 s; the whole burst of two in ~60 s.
    assert 29 <= retry_after <= 30 and 59 <= reset <= 60
    assert [_limits(r)[1] for r in answers[:2]] == [1, 0]


async def test_unauthenticated_and_unknown_token_answers_have_none(app: Starlette, redis_client: Redis) -> None:
    async with _client(app) as client:
        missing = await client.get("/v1/game/ok")
        unknown = await client.get("/v1/game/ok", headers={"Authorization": "Bearer mt_not_a_token"})
        anonymous = await client.get("/healthz")
    assert (missing.status_code, unknown.status_code) == (401, 401)
    for response in (missing, unknown, anonymous):
        assert not any(name in response.headers for name in HEADERS)


async def test_out_of_scope_token_is_counted_and_told(app: Starlette, redis_client: Redis) -> None:
    account_id, auth = await _token(redis_client, rate_per_minute=60, burst=5)
    await redis_client.hset(keys.account(account_id), "scopes", "video")
    async with _client(app) as client:
        forbidden = await client.get("/v1/game/ok", headers=auth)
    assert forbidden.status_code == 403
    assert _limits(forbidden)[:2] == (60, 4)
