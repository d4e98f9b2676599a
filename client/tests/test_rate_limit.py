"""``X-RateLimit-*``: the clients keep the latest state, errors carry theirs, streamed speech updates it too."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from email.utils import formatdate
from pathlib import Path

import pytest

from conftest import LoopbackServer, Recorded, Reply
from mediatrans_client import AsyncClient, Client, RateLimit, RateLimitedError, ServiceBusyError

ACCOUNT = {"account_id": "acct_1", "name": "n", "rate_limit_per_minute": 600, "rate_limit_burst": 60}


def limits(remaining: int, reset: int, limit: int = 600) -> dict[str, str]:
    return {"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(remaining), "X-RateLimit-Reset": str(reset)}


def test_every_response_updates_last_rate_limit(server: LoopbackServer, client: Client) -> None:
    answers = iter([Reply(200, ACCOUNT, limits(59, 1)), Reply(200, ACCOUNT, limits(58, 2))])
    server.route("GET", "/v1/account")(lambda r: next(answers))
    assert client.last_rate_limit is None
    before = time.time()
    client.account()
    first = client.last_rate_limit
    assert first is not None and (first.limit, first.remaining, first.reset) == (600, 59, 1.0)
    assert before <= first.observed_at <= time.time() and first.reset_at == first.observed_at + 1.0
    client.account()
    assert client.last_rate_limit is not None and client.last_rate_limit.remaining == 58


def test_a_response_without_headers_keeps_the_last_known_state(server: LoopbackServer, client: Client) -> None:
    server.route("GET", "/v1/account")(lambda r: Reply(200, ACCOUNT, limits(10, 5)))
    server.route("GET", "/v1/languages")(lambda r: Reply(200, {"languages": [], "total": 0}))
    client.account()
    client.languages()  # unauthenticated endpoint: no rate-limit headers
    assert client.last_rate_limit is not None and client.last_rate_limit.remaining == 10


def test_rate_limited_error_carries_the_state_and_retries_update_it(server: LoopbackServer) -> None:
    body = {"code": 4001, "message": "Rate limit exceeded.", "request_id": "r"}
    server.route("GET", "/v1/account")(lambda r: Reply(429, body, {"Retry-After": "1", **limits(0, 7)}))
    with Client(server.base_url, "tok", max_attempts=2, retry_after_cap=0.05) as client:
        try:
            client.account()
        except RateLimitedError as exc:
            error = exc
        else:
            raise AssertionError("429 must raise")
    assert error.retry_after == 1.0
    assert error.rate_limit is not None and (error.rate_limit.remaining, error.rate_limit.reset) == (0, 7.0)
    last = client.last_rate_limit
    assert last is not None and (last.limit, last.remaining, last.reset) == (600, 0, 7.0)
    assert len(server.requests_to("GET", "/v1/account")) == 2


def test_other_errors_carry_it_too_and_none_without_headers(server: LoopbackServer) -> None:
    busy = {"code": 5002, "message": "busy", "request_id": "r"}
    server.route("POST", "/v1/grammar")(lambda r: Reply(503, busy, {"Retry-After": "0", **limits(3, 4)}))
    server.route("GET", "/v1/tts/voices")(lambda r: Reply(401, {"code": 2001, "message": "no token", "request_id": "r"}))
    with Client(server.base_url, "tok", max_attempts=1) as client:
        try:
            client.grammar.check("x", lang="en")
        except ServiceBusyError as exc:
            assert exc.rate_limit is not None and exc.rate_limit.remaining == 3
        try:
            client.tts.voices()
        except Exception as exc:
            assert getattr(exc, "rate_limit", "missing") is None


def test_streamed_speech_updates_it(server: LoopbackServer, client: Client, tmp_path: Path) -> None:
    def speak(request: Recorded) -> Reply:
        return Reply(200, b"\x00\x01" * 100, {"Content-Type": "audio/pcm", **limits(41, 19)})

    server.route("POST", "/v1/tts")(speak)
    client.tts.synthesize("Hello.", None, tmp_path / "out.pcm", lang="en")
    assert client.last_rate_limit is not None and client.last_rate_limit.remaining == 41


def test_async_client_tracks_it(server: LoopbackServer) -> None:
    server.route("GET", "/v1/account")(lambda r: Reply(200, ACCOUNT, limits(12, 48, limit=60)))

    async def run() -> RateLimit | None:
        async with AsyncClient(server.base_url, "tok") as client:
            await client.account()
            return client.last_rate_limit

    state = asyncio.run(run())
    assert state is not None and (state.limit, state.remaining, state.reset) == (60, 12, 48.0)


def test_unreadable_headers_are_ignored() -> None:
    assert RateLimit.from_headers({"x-ratelimit-limit": "60", "x-ratelimit-remaining": "x", "x-ratelimit-reset": "1"}) is None
    assert RateLimit.from_headers({"x-ratelimit-limit": "60"}) is None
    parsed = RateLimit.from_headers({"x-ratelimit-limit": "60", "x-ratelimit-remaining": "5", "x-ratelimit-reset": "2"}, 100.0)
    assert parsed == RateLimit(60, 5, 2.0, 100.0) and parsed.reset_at == 102.0


def test_the_speech_iterator_updates_it(server: LoopbackServer, client: Client) -> None:
    server.route("POST", "/v1/tts")(lambda r: Reply(200, b"\x00" * 64, {"Content-Type": "audio/pcm", **limits(7, 3)}))
    assert b"".join(client.tts.stream("Hello.", lang="en")) == b"\x00" * 64
    assert client.last_rate_limit is not None and client.last_rate_limit.remaining == 7


def test_a_429_with_an_http_date_gives_retry_after_in_seconds(server: LoopbackServer) -> None:
    when = formatdate(time.time() + 30, usegmt=True)
    body = {"code": 4001, "message": "Rate limit exceeded.", "request_id": "r"}
    server.route("POST", "/v1/grammar")(lambda r: Reply(429, body, {"Retry-After": when, **limits(0, 30)}))
    with Client(server.base_url, "tok", max_attempts=1) as client, pytest.raises(RateLimitedError) as info:
        client.grammar.check("x", lang="en")
    assert info.value.retry_after is not None and 27.0 <= info.value.retry_after <= 31.0
    assert info.value.rate_limit is not None and info.value.rate_limit.reset == 30.0


def test_the_cli_shows_retry_after_and_the_rate_limit_of_a_429(server: LoopbackServer, tmp_path: Path) -> None:
    body = {"code": 4001, "message": "Rate limit exceeded.", "request_id": "r-429"}
    server.route("GET", "/v1/account")(lambda r: Reply(429, body, {"Retry-After": "2", **limits(0, 12, limit=60)}))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEDIATRANS_")},
        "MEDIATRANS_BASE_URL": server.base_url,
        "MEDIATRANS_TOKEN": "tok",
        "XDG_CONFIG_HOME": str(tmp_path),
    }
    mediatrans = str(Path(sys.executable).with_name("mediatrans"))
    shown = subprocess.run([mediatrans, "--retries", "0", "account"], env=env, capture_output=True, text=True, timeout=60)
    assert shown.returncode == 6 and "retry after 2 s" in shown.stderr
    as_json = subprocess.run(
        [mediatrans, "--json", "--retries", "0", "account"], env=env, capture_output=True, text=True, timeout=60
    )
    error = json.loads(as_json.stderr)["error"]
    assert error["retry_after"] == 2.0 and error["rate_limit"] == {"limit": 60, "remaining": 0, "reset": 12.0}
