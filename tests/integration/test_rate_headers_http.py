"""``X-RateLimit-*`` through Serve's proxy: JSON answers, streamed speech, refusals and errors alike."""

from __future__ import annotations

import httpx
import pytest

from tests.integration.conftest import Accounts

pytestmark = pytest.mark.serve

HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")


def limits(response: httpx.Response) -> tuple[int, int, int]:
    limit, remaining, reset = (int(response.headers[name]) for name in HEADERS)
    return limit, remaining, reset


def test_success_stream_error_and_refusal_carry_the_headers(client: httpx.Client, accounts: Accounts) -> None:
    _account, token = accounts.create(rate_per_minute=1, burst=4)
    auth = {"Authorization": f"Bearer {token}"}
    account = client.get("/v1/account", headers=auth)
    with client.stream(
        "POST", "/v1/tts", json={"text": "Hello there.", "lang": "en", "output_format": "wav"}, headers=auth
    ) as tts:
        assert tts.status_code == 200
        audio = tts.read()
    invalid = client.post("/v1/tts", json={"text": "Hello.", "lang": "en", "speed": True}, headers=auth)
    refused = client.get("/v1/account", headers=auth)
    over = client.get("/v1/account", headers=auth)
    assert [r.status_code for r in (account, tts, invalid, refused, over)] == [200, 200, 400, 200, 429]
    assert audio[:4] == b"RIFF"
    assert invalid.json()["code"] == 1001
    assert over.json()["code"] == 4001 and int(over.headers["retry-after"]) >= 1
    # 1/min, burst 4: each admitted request takes one of the burst and 60 s of the bucket (less the time gone by).
    answers = [limits(r) for r in (account, tts, invalid, refused, over)]
    assert [(limit, remaining) for limit, remaining, _ in answers] == [(1, 3), (1, 2), (1, 1), (1, 0), (1, 0)]
    for reset, bucket in zip([reset for *_, reset in answers], [60, 120, 180, 240, 240]):
        assert bucket - 30 < reset <= bucket


def test_unauthenticated_answers_have_no_rate_limit_headers(client: httpx.Client) -> None:
    for response in (client.get("/v1/account"), client.get("/v1/languages"), client.get("/healthz")):
        assert not any(name in response.headers for name in HEADERS), response.headers
