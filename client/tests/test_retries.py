"""Retries: Retry-After honoured, backoff on 503, one creation per Idempotency-Key, connection failures."""

from __future__ import annotations

import asyncio
import json
import random
import time
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest

from conftest import LoopbackServer, Recorded, Reply
from mediatrans_client import AsyncClient, Client, ConnectionFailedError, RateLimitedError
from mediatrans_client._retry import RetryPolicy, parse_retry_after

VIDEO_BYTES = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 64


def flaky_create(server: LoopbackServer, path: str, created: dict[str, Any]) -> list[Recorded]:
    """429 (Retry-After: 1), then 503 (no Retry-After: client backoff), then the real creation, keyed like the service."""
    attempts: list[Recorded] = []

    def handler(request: Recorded) -> Reply:
        attempts.append(request)
        if len(attempts) == 1:
            return Reply(429, {"code": "RATE_LIMITED", "message": "slow down", "request_id": "r1"}, {"Retry-After": "1"})
        if len(attempts) == 2:
            return Reply(503, {"code": "SERVICE_BUSY", "message": "busy", "request_id": "r2"})
        key = request.headers.get("idempotency-key")
        if key not in created:  # the "create" logic: runs once per key, replays afterwards
            created[key] = {"task_id": f"task-{len(created) + 1}", "status": "queued", "created_at": "2026-01-01T00:00:00Z"}
        return Reply(200, created[key], {"X-Request-ID": "r3"})

    server.route("POST", path)(handler)
    return attempts


def test_upload_retried_with_one_key_and_retry_after_honoured(server: LoopbackServer, client: Client, tmp_path: Path) -> None:
    created: dict[str, Any] = {}
    attempts = flaky_create(server, "/v1/video/translate", created)
    video = tmp_path / "clip.mp4"
    video.write_bytes(VIDEO_BYTES)

    started = time.monotonic()
    task = client.video.translate(video, target_lang="fr", bilingual=True)
    elapsed = time.monotonic() - started

    assert task.task_id == "task-1" and task.status == "queued"
    assert len(attempts) == 3
    assert len(created) == 1
    keys = {a.headers.get("idempotency-key") for a in attempts}
    assert len(keys) == 1 and None not in keys
    assert all(VIDEO_BYTES in a.body for a in attempts), "every attempt re-sends the whole file"
    assert all(a.headers["content-type"].startswith("multipart/form-data") for a in attempts)
    assert b'name="bilingual"\r\n\r\ntrue' in attempts[0].body
    assert all(a.headers["authorization"] == "Bearer mt_test_token" for a in attempts)
    assert 1.0 <= elapsed < 5.0


def test_video_url_goes_as_form_field(server: LoopbackServer, client: Client) -> None:
    seen: list[Recorded] = []
    server.route("POST", "/v1/video/translate")(lambda r: (seen.append(r), Reply(200, {"task_id": "t", "status": "queued"}))[1])
    client.video.translate("https://cdn.example.com/v.mp4", target_lang="de", source_lang="en")
    body = seen[0].body.decode()
    assert "video_url=https%3A%2F%2Fcdn.example.com%2Fv.mp4" in body and "target_lang=de" in body
    assert seen[0].headers.get("idempotency-key")


def test_game_sends_key_grammar_does_not(server: LoopbackServer, client: Client) -> None:
    server.route("POST", "/v1/game/localization")(
        lambda r: Reply(200, {"original": "Start", "translations": {"fr": "Démarrer"}, "content_type": "ui", "future_field": 1})
    )
    server.route("POST", "/v1/grammar")(lambda r: Reply(200, {"original": "x", "issues": [], "issues_count": 0}))
    result = client.game.localize("Start", "en", ["fr"], genre="rpg")
    assert result.translations == {"fr": "Démarrer"} and result.model_extra == {"future_field": 1}
    client.grammar.check("x", lang="en", auto_correct=True)
    game, grammar = server.requests_to("POST", "/v1/game/localization")[0], server.requests_to("POST", "/v1/grammar")[0]
    assert game.headers.get("idempotency-key") and "idempotency-key" not in grammar.headers
    assert json.loads(game.body)["genre"] == "rpg" and json.loads(grammar.body)["auto_correct"] is True


def test_gives_up_after_max_attempts_with_request_id(server: LoopbackServer) -> None:
    server.route("GET", "/v1/video/task/t1")(
        lambda r: Reply(429, {"code": "RATE_LIMITED", "message": "slow down", "request_id": "rid-9"}, {"Retry-After": "0"})
    )
    with Client(server.base_url, "tok", max_attempts=3) as c, pytest.raises(RateLimitedError) as info:
        c.video.get("t1")
    assert len(server.requests) == 3
    assert info.value.request_id == "rid-9" and info.value.retry_after == 0.0 and info.value.status == 429


def test_connection_errors_are_retried_then_raised() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: connections are refused
    with Client(f"http://127.0.0.1:{port}", "tok", max_attempts=2) as c, pytest.raises(ConnectionFailedError) as info:
        c.grammar.check("text")
    assert "after 2 attempt" in info.value.message and info.value.status is None


def test_async_client_reuses_key_and_honours_retry_after(server: LoopbackServer, tmp_path: Path) -> None:
    created: dict[str, Any] = {}
    attempts = flaky_create(server, "/v1/video/translate", created)
    video = tmp_path / "clip.mp4"
    video.write_bytes(VIDEO_BYTES)

    async def run() -> str:
        async with AsyncClient(server.base_url, "tok") as c:
            return (await c.video.translate(video, target_lang="fr")).task_id

    started = time.monotonic()
    assert asyncio.run(run()) == "task-1"
    assert time.monotonic() - started >= 1.0
    assert len(created) == 1 and len({a.headers["idempotency-key"] for a in attempts}) == 1


def test_retry_after_parsing_and_caps() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    now = time.time()
    assert 29.0 <= (parse_retry_after(formatdate(now + 30, usegmt=True), now=now) or 0) <= 31.0
    assert parse_retry_after(formatdate(now - 30, usegmt=True), now=now) == 0.0
    policy = RetryPolicy(retry_after_cap=60.0)
    rng = random.Random(1)
    assert policy.delay(1, 3600.0, rng) == 60.0
    assert all(0.0 <= policy.delay(n, None, rng) <= min(30.0, 0.5 * 2 ** (n - 1)) for n in range(1, 10))
