"""``POST /v1/tts`` streams: the per-account limit, and a client that goes away stops the synthesis."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import redis

from core import keys
from tests.integration.conftest import Accounts

pytestmark = [pytest.mark.serve, pytest.mark.models]

#: 40 sentences, each one chunk of ``pcm`` audio: minutes of speech, far more than the test waits for.
LONG_TEXT = " ".join(f"This is sentence number {n} of a long story that nobody will hear to the end." for n in range(1, 41))


def tts_stats() -> dict[str, int]:
    """The TTS replica's own count of open streams and of chunks it has synthesized for streams."""
    from ray import serve

    handle = serve.get_deployment_handle("TTS", app_name="mediatrans")
    stats: dict[str, int] = handle.stream_stats.remote().result(timeout_s=30)
    return stats


def open_slots(redis_url: str, account_id: str) -> int:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        now = client.time()[0]
        return int(client.zcount(keys.account_streams(account_id, "tts"), f"({now}", "+inf"))
    finally:
        client.close()


def wait_for(condition: Callable[[], bool], timeout_s: float) -> float:
    """Seconds until ``condition`` held; fails after ``timeout_s``."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout_s:
            raise AssertionError(f"not within {timeout_s} s")
        time.sleep(0.1)
    return time.monotonic() - started


def test_client_going_away_stops_synthesis_and_frees_the_slot(
    serve_base_url: str, accounts: Accounts, serve_redis_url: str
) -> None:
    account, token = accounts.create()
    before = tts_stats()
    with httpx.Client(base_url=serve_base_url, timeout=120) as http:
        body = {"text": LONG_TEXT, "lang": "en", "output_format": "pcm"}
        with http.stream("POST", "/v1/tts", json=body, headers={"Authorization": f"Bearer {token}"}) as response:
            assert response.status_code == 200
            chunks = response.iter_raw()
            assert next(chunks)
            # Synthesis runs ahead of a client that is not reading: wait until it is well under way.
            wait_for(lambda: tts_stats()["chunks"] - before["chunks"] >= 4, timeout_s=60)
            assert open_slots(serve_redis_url, account.id) == 1
            assert tts_stats()["open"] == before["open"] + 1
    # The connection is closed: the ingress cancels the replica's stream and releases the account's slot.
    released_after = wait_for(lambda: open_slots(serve_redis_url, account.id) == 0, timeout_s=10)
    wait_for(lambda: tts_stats()["open"] == before["open"], timeout_s=10)
    stopped_at = tts_stats()["chunks"]
    time.sleep(3)
    after = tts_stats()
    made = after["chunks"] - before["chunks"]
    print(f"slot released {released_after:.1f} s after the disconnect; {made} of 40 sentences synthesized")
    assert after["chunks"] == stopped_at, "the replica went on synthesizing after the client left"
    assert made < 40


def test_streams_over_the_accounts_limit_are_refused_with_retry_after(
    serve_base_url: str, accounts: Accounts, serve_redis_url: str
) -> None:
    account, token = accounts.create(caps={"tts_streams": 2})
    other_account, other_token = accounts.create(caps={"tts_streams": 2})
    auth = {"Authorization": f"Bearer {token}"}
    body = {"text": LONG_TEXT, "lang": "en", "output_format": "pcm"}

    async def scenario() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=serve_base_url, timeout=120) as http:
            streams = [await _open(http, body, auth) for _ in range(2)]
            assert open_slots(serve_redis_url, account.id) == 2
            refused = await http.post("/v1/tts", json={"text": "Hi.", "lang": "en"}, headers=auth)
            other = await http.post(
                "/v1/tts", json={"text": "Hi.", "lang": "en"}, headers={"Authorization": f"Bearer {other_token}"}
            )
            for stream, _chunks in streams:
                await stream.aclose()
            await asyncio.sleep(0)
            return {"refused": refused, "other": other}

    answers = asyncio.run(scenario())
    refused, other = answers["refused"], answers["other"]
    assert refused.status_code == 429 and refused.json()["code"] == 4001
    assert "2 concurrent TTS streams" in refused.json()["message"]
    assert int(refused.headers["retry-after"]) >= 1
    assert other.status_code == 200, "another account's streams are its own"
    wait_for(lambda: open_slots(serve_redis_url, account.id) == 0, timeout_s=10)
    after = httpx.post(f"{serve_base_url}/v1/tts", json={"text": "Hi.", "lang": "en"}, headers=auth, timeout=120)
    assert after.status_code == 200 and after.content
    assert open_slots(serve_redis_url, other_account.id) == 0


async def _open(http: httpx.AsyncClient, body: dict[str, Any], headers: dict[str, str]) -> tuple[httpx.Response, Any]:
    """A started stream whose first chunk has arrived (its slot is held), left open.

    The chunk iterator is returned with it: dropped, it would be collected and close the connection.
    """
    response = await http.send(http.build_request("POST", "/v1/tts", json=body, headers=headers), stream=True)
    assert response.status_code == 200
    chunks = response.aiter_raw()
    assert await chunks.__anext__()
    return response, chunks
