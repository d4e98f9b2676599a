"""``POST /v1/voice/clone`` does its cheap checks before it fetches the sample URL (and refunds what it charged).

A loopback server that counts the requests for the sample stands in for the
client's file host; a refused request must never reach it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Accounts

pytestmark = [pytest.mark.serve]


class CountingHost:
    """Serves one file at ``/sample`` and counts every request for it."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.hits = 0
        self.port = 0

    def url(self) -> str:
        return f"http://localhost:{self.port}/sample"


@contextlib.contextmanager
def counting_host(body: bytes) -> Iterator[CountingHost]:
    host = CountingHost(body)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            host.hits += 1
            self.send_response(200)
            self.send_header("Content-Type", "audio/flac")
            self.send_header("Content-Length", str(len(host.body)))
            self.end_headers()
            self.wfile.write(host.body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    host.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield host
    finally:
        server.shutdown()
        server.server_close()


def clone(client: httpx.Client, token: str, sample: str, **fields: Any) -> httpx.Response:
    body = {"sample": sample, "voice_name": f"voice-{time.monotonic_ns()}", "lang": "en", **fields}
    return client.post("/v1/voice/clone", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=120)


def code(response: httpx.Response) -> tuple[int, Any]:
    return response.status_code, response.json().get("code")


def clones_used(client: httpx.Client, token: str) -> int:
    account = client.get("/v1/account", headers={"Authorization": f"Bearer {token}"})
    return int(account.json()["usage"]["voice_clones"])


def add_voice(redis_url: str, account_id: str, name: str) -> None:
    from redis.asyncio import Redis

    from core.voices import READY, Voice, VoiceStore

    async def write() -> None:
        redis = Redis.from_url(redis_url, decode_responses=True)
        try:
            await VoiceStore(redis).create(Voice(VoiceStore.new_id(), account_id, name, "en", READY, time.time()), 10)
        finally:
            await redis.aclose()

    asyncio.run(write())


def test_refusals_never_fetch_the_sample(
    client: httpx.Client, accounts: Accounts, samples: dict[str, Path], serve_redis_url: str
) -> None:
    account, token = accounts.create()
    _full, full_token = accounts.create(voice_slots=0)
    _broke, broke_token = accounts.create(quotas={"voice_clones": 0})
    add_voice(serve_redis_url, account.id, "Taken")
    with counting_host(samples["flac"].read_bytes()) as host:
        assert code(clone(client, token, host.url(), lang="xx-nope")) == (400, 1001)
        assert code(clone(client, token, host.url(), voice_name="taken ")) == (400, 1006)
        assert code(clone(client, token, host.url(), callback_url="ftp://localhost/hook")) == (400, 1001)
        assert code(clone(client, token, "gopher://localhost/sample")) == (400, 1001)
        assert code(clone(client, full_token, host.url())) == (403, 2004)
        assert code(clone(client, broke_token, host.url())) == (456, 4002)
        assert host.hits == 0, "a refused clone fetched its sample"
    assert clones_used(client, token) == 0


def test_a_sample_refused_after_the_charge_is_refunded(client: httpx.Client, accounts: Accounts) -> None:
    _account, token = accounts.create(quotas={"voice_clones": 1})
    with counting_host(b"this is not audio\n" * 100) as host:
        assert code(clone(client, token, host.url())) == (415, 3002)
        assert host.hits == 1  # fetched once the cheap checks passed
        assert clones_used(client, token) == 0
        assert code(clone(client, token, host.url())) == (415, 3002)  # the refund left the quota whole
        assert host.hits == 2
