"""Auth, errors, request ids and rate limits through the real Serve app over HTTP."""

from __future__ import annotations

import asyncio
import re
import time

import httpx
import pytest
from redis.asyncio import Redis

from core.tasks import TaskStore
from tests.integration.conftest import Accounts

pytestmark = pytest.mark.serve


def assert_error(response: httpx.Response, status: int, code: int | str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["code"] == code
    assert body["message"]
    assert body["request_id"] == response.headers["x-request-id"]
    return body


class TestAuthentication:
    def test_missing_token_numeric_group(self, client: httpx.Client) -> None:
        assert_error(client.get("/v1/account"), 401, 2001)

    def test_missing_token_video_group(self, client: httpx.Client) -> None:
        assert_error(client.get("/v1/video/task/abc"), 401, "UNAUTHORIZED")

    @pytest.mark.parametrize("header", ["Basic dXNlcjpwYXNz", "Bearer", "Token mt_abc", "mt_abc"])
    def test_malformed_header(self, client: httpx.Client, header: str) -> None:
        assert_error(client.get("/v1/account", headers={"Authorization": header}), 401, 2001)

    def test_unknown_token(self, client: httpx.Client) -> None:
        headers = {"Authorization": "Bearer mt_" + "x" * 43}
        assert_error(client.get("/v1/account", headers=headers), 401, 2001)
        assert_error(client.get("/v1/video/task/abc", headers=headers), 401, "UNAUTHORIZED")

    def test_valid_token(self, client: httpx.Client, accounts: Accounts) -> None:
        account, token = accounts.create()
        response = client.get("/v1/account", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 200
        assert response.json()["account_id"] == account.id

    def test_revoked_token(self, client: httpx.Client, accounts: Accounts) -> None:
        account, token = accounts.create()
        headers = {"Authorization": f"Bearer {token}"}
        assert client.get("/v1/account", headers=headers).status_code == 200
        accounts.revoke_all(account)
        assert_error(client.get("/v1/account", headers=headers), 401, 2001)

    def test_expired_token(self, client: httpx.Client, accounts: Accounts) -> None:
        account, _ = accounts.create()
        token = accounts.issue(account, ttl_s=1)
        headers = {"Authorization": f"Bearer {token}"}
        assert client.get("/v1/account", headers=headers).status_code == 200
        time.sleep(2.1)
        assert_error(client.get("/v1/account", headers=headers), 401, 2001)

    def test_languages_needs_no_token(self, client: httpx.Client) -> None:
        assert client.get("/v1/languages").status_code == 200


class TestTenantIsolation:
    def test_other_accounts_task_is_not_found(self, client: httpx.Client, accounts: Accounts, serve_redis_url: str) -> None:
        owner, owner_token = accounts.create()
        _other, other_token = accounts.create()

        async def make_task() -> str:
            redis = Redis.from_url(serve_redis_url, decode_responses=True)
            try:
                return (await TaskStore(redis).create(owner.id, {"target_lang": "es"})).task_id
            finally:
                await redis.aclose()

        task_id = asyncio.run(make_task())
        mine = client.get(f"/v1/video/task/{task_id}", headers={"Authorization": f"Bearer {owner_token}"})
        assert mine.status_code == 200  # the worker may already be running (and failing) this bare task
        assert mine.json()["status"] in ("queued", "processing", "failed")
        assert mine.json()["task_id"] == task_id
        theirs = client.get(f"/v1/video/task/{task_id}", headers={"Authorization": f"Bearer {other_token}"})
        missing = client.get("/v1/video/task/doesnotexist", headers={"Authorization": f"Bearer {other_token}"})
        assert assert_error(theirs, 404, "TASK_NOT_FOUND")["message"] == assert_error(missing, 404, "TASK_NOT_FOUND")["message"]
        for odd in ("%7Baccount%7D", "x" * 300, "A" * 32):
            assert_error(
                client.get(f"/v1/video/task/{odd}", headers={"Authorization": f"Bearer {owner_token}"}), 404, "TASK_NOT_FOUND"
            )


class TestErrorsAndRequestIds:
    def test_unknown_route_is_json(self, client: httpx.Client) -> None:
        assert_error(client.get("/v1/nope"), 404, 2004)
        assert_error(client.get("/v1/video/nope"), 404, "NOT_FOUND")
        assert_error(client.get("/"), 404, 2004)

    def test_method_not_allowed_is_json(self, client: httpx.Client) -> None:
        response = client.delete("/v1/languages")
        assert_error(response, 405, 1004)
        assert "GET" in response.headers["allow"]

    def test_request_id_created(self, client: httpx.Client) -> None:
        first = client.get("/v1/languages").headers["x-request-id"]
        second = client.get("/v1/languages").headers["x-request-id"]
        assert first and second and first != second
        assert len(client.get("/v1/languages").headers.get_list("x-request-id")) == 1

    def test_request_id_accepted(self, client: httpx.Client) -> None:
        response = client.get("/v1/account", headers={"X-Request-ID": "client-id-42"})
        assert response.headers["x-request-id"] == "client-id-42"
        assert response.json()["request_id"] == "client-id-42"

    def test_health_and_ready(self, client: httpx.Client) -> None:
        assert client.get("/healthz").json() == {"status": "ok"}
        ready = client.get("/readyz").json()
        assert ready["status"] == "ready"
        assert set(ready["checks"]) >= {"redis", "translator"}


class TestRateLimit:
    def test_burst_then_429_with_retry_after(self, client: httpx.Client, accounts: Accounts) -> None:
        _account, token = accounts.create(rate_per_minute=6, burst=3)
        headers = {"Authorization": f"Bearer {token}"}
        statuses = [client.get("/v1/account", headers=headers).status_code for _ in range(3)]
        assert statuses == [200, 200, 200]
        limited = client.get("/v1/account", headers=headers)
        assert_error(limited, 429, 4001)
        assert 1 <= int(limited.headers["retry-after"]) <= 10
        video = client.get("/v1/video/task/x", headers=headers)
        assert_error(video, 429, "RATE_LIMITED")

    def test_limits_are_per_account(self, client: httpx.Client, accounts: Accounts) -> None:
        _a, token_a = accounts.create(rate_per_minute=1, burst=1)
        _b, token_b = accounts.create(rate_per_minute=1, burst=1)
        assert client.get("/v1/account", headers={"Authorization": f"Bearer {token_a}"}).status_code == 200
        assert client.get("/v1/account", headers={"Authorization": f"Bearer {token_a}"}).status_code == 429
        assert client.get("/v1/account", headers={"Authorization": f"Bearer {token_b}"}).status_code == 200

    def test_rate_recovers(self, client: httpx.Client, accounts: Accounts) -> None:
        _account, token = accounts.create(rate_per_minute=60, burst=1)
        headers = {"Authorization": f"Bearer {token}"}
        assert client.get("/v1/account", headers=headers).status_code == 200
        limited = client.get("/v1/account", headers=headers)
        assert limited.status_code == 429
        time.sleep(int(limited.headers["retry-after"]) + 0.1)
        assert client.get("/v1/account", headers=headers).status_code == 200


class TestOpenApi:
    def test_document_lists_routes_and_codes(self, client: httpx.Client) -> None:
        doc = client.get("/openapi.json").json()
        assert doc["openapi"].startswith("3.")
        assert "/v1/languages" in doc["paths"]
        video = doc["paths"]["/v1/video/task/{task_id}"]["get"]
        assert "UNAUTHORIZED" in video["responses"]["401"]["description"]
        page = client.get("/docs")
        assert page.headers["content-type"].startswith("text/html")
        assert re.search(r"GET /v1/languages", page.text)
