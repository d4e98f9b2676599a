"""Rate limits, quotas and idempotency against a real redis-server."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from redis.asyncio import Redis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from core.accounts import AccountStore
from core.errors import ApiError, ErrorKind
from core.quotas import QuotaLedger, seconds_to_next_period
from serve_app.idempotency import IdempotencyStore, fingerprint
from serve_app.limits import RateLimiter
from serve_app.responses import HANDLED, handle_exception


async def test_gcra_burst_then_refuse(redis_client: Redis) -> None:
    from core.accounts import hash_token

    store = AccountStore(redis_client)
    account = await store.create("rl", rate_per_minute=60, burst=5)
    token_hash = hash_token((await store.issue_token(account)).token)
    limiter = RateLimiter(redis_client)
    decisions = [(await limiter.admit(token_hash)).rate for _ in range(6)]  # type: ignore[union-attr]
    assert [d.allowed for d in decisions] == [True] * 5 + [False]
    assert [d.remaining for d in decisions[:5]] == [4, 3, 2, 1, 0]
    assert 0 < decisions[-1].retry_after_s <= 1.0
    error = limiter.refuse(account, decisions[-1])
    assert error.kind is ErrorKind.RATE_LIMITED and error.headers["Retry-After"] == "1"


async def test_quota_refuses_what_does_not_fit(redis_client: Redis) -> None:
    account = await AccountStore(redis_client).create("q", quotas={"game_characters": 100})
    ledger = QuotaLedger(redis_client)
    assert await ledger.consume(account, "game_characters", 60) == 60
    with pytest.raises(ApiError) as err:
        await ledger.consume(account, "game_characters", 41)
    assert err.value.kind is ErrorKind.QUOTA_EXCEEDED
    assert int(err.value.headers["Retry-After"]) == pytest.approx(seconds_to_next_period(), abs=5)
    assert await ledger.consume(account, "game_characters", 40) == 100
    assert (await ledger.usage(account))["game_characters"] == 100


async def test_unlimited_metric_is_counted(redis_client: Redis) -> None:
    account = await AccountStore(redis_client).create("u")
    ledger = QuotaLedger(redis_client)
    for _ in range(3):
        await ledger.consume(account, "video_tasks")
    assert (await ledger.usage(account))["video_tasks"] == 3


def make_app(store: IdempotencyStore, created: list[dict]) -> Starlette:
    async def create(request: Request) -> JSONResponse:
        payload = await request.json()

        async def do() -> JSONResponse:
            if payload.get("fail"):
                raise ApiError(ErrorKind.INTERNAL, "boom")
            created.append(payload)
            return JSONResponse({"id": len(created), **payload}, status_code=201)

        return await store.run(request, "acct", fingerprint("POST", "/things", payload), do)

    app = Starlette(
        routes=[Route("/things", create, methods=["POST"])], exception_handlers={cls: handle_exception for cls in HANDLED}
    )
    return app


async def test_idempotency_replays_and_rejects_changed_body(redis_client: Redis) -> None:
    created: list[dict] = []
    app = make_app(IdempotencyStore(redis_client), created)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        key = {"Idempotency-Key": "k-1"}
        first = await c.post("/things", json={"a": 1, "b": 2}, headers=key)
        again = await c.post("/things", content=json.dumps({"b": 2, "a": 1}), headers={**key, "content-type": "application/json"})
        other = await c.post("/things", json={"a": 2}, headers=key)
        fresh = await c.post("/things", json={"a": 1, "b": 2}, headers={"Idempotency-Key": "k-2"})
        no_key = await c.post("/things", json={"a": 1, "b": 2})
    assert first.status_code == 201 and again.status_code == 201
    assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
    assert other.status_code == 409 and other.json()["code"] == 1005
    assert fresh.json()["id"] == 2 and no_key.json()["id"] == 3
    assert len(created) == 3


async def test_failed_first_attempt_releases_key(redis_client: Redis) -> None:
    created: list[dict] = []
    app = make_app(IdempotencyStore(redis_client), created)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        failed = await c.post("/things", json={"fail": True}, headers={"Idempotency-Key": "k"})
        assert failed.status_code == 500
        retried = await c.post("/things", json={"fail": True}, headers={"Idempotency-Key": "k"})
        assert retried.status_code == 500  # ran again rather than replaying or conflicting
        too_long = await c.post("/things", json={}, headers={"Idempotency-Key": "x" * 300})
        assert too_long.status_code == 400


async def test_admit_resolves_token_and_limits_in_one_call(redis_client: Redis) -> None:
    from core.accounts import hash_token

    store = AccountStore(redis_client)
    account = await store.create("adm", rate_per_minute=60, burst=2)
    token = (await store.issue_token(account)).token
    limiter = RateLimiter(redis_client)
    first = await limiter.admit(hash_token(token))
    assert first is not None and first.account.id == account.id and first.rate.allowed and not first.disabled
    assert (await limiter.admit(hash_token(token))).rate.allowed  # type: ignore[union-attr]
    third = await limiter.admit(hash_token(token))
    assert third is not None and not third.rate.allowed and third.rate.retry_after_s > 0
    assert await limiter.admit(hash_token("mt_unknown")) is None
    account.disabled = True
    await store.update(account)
    disabled = await limiter.admit(hash_token(token))
    assert disabled is not None and disabled.disabled


async def test_admit_prefetches_only_for_admitted_callers(redis_client: Redis) -> None:
    from core import keys
    from core.accounts import hash_token

    store = AccountStore(redis_client)
    account = await store.create("pre", rate_per_minute=60, burst=1)
    token = (await store.issue_token(account)).token
    await redis_client.set(keys.quota(account.id, "video_tasks", "p"), "7")
    await redis_client.hset(keys.task("t1"), mapping={"a": "1"})
    reads = [keys.quota(keys.ACCOUNT_PLACEHOLDER, "video_tasks", "p"), keys.task("t1"), keys.task("missing")]
    limiter = RateLimiter(redis_client)
    first = await limiter.admit(hash_token(token), reads)
    assert first is not None and first.prefetched == ("7", ["a", "1"], None)
    refused = await limiter.admit(hash_token(token), reads)
    assert refused is not None and not refused.rate.allowed and refused.prefetched == ()


def slow_app(store: IdempotencyStore, created: list[dict], delay_s: float) -> Starlette:
    async def create(request: Request) -> JSONResponse:
        payload = await request.json()

        async def do() -> JSONResponse:
            await asyncio.sleep(delay_s)
            created.append(payload)
            return JSONResponse({"id": len(created)}, status_code=201)

        return await store.run(request, "acct", fingerprint("POST", "/things", payload), do)

    return Starlette(
        routes=[Route("/things", create, methods=["POST"])], exception_handlers={cls: handle_exception for cls in HANDLED}
    )


async def test_two_identical_concurrent_posts_create_once(redis_client: Redis) -> None:
    created: list[dict] = []
    app = slow_app(IdempotencyStore(redis_client, lease_s=0.3), created, delay_s=1.0)  # runs for several lease lengths
    together = await asyncio.gather(*(_post_once(app, "burst") for _ in range(2)))
    assert sorted(r.status_code for r in together) == [201, 409] and len(created) == 1
    assert next(r for r in together if r.status_code == 409).json()["code"] == 1005

    first = asyncio.create_task(_post_once(app, "slow"))
    await asyncio.sleep(0.7)  # past two lease lengths: only renewal keeps the key reserved
    during = await _post_once(app, "slow")
    assert during.status_code == 409 and during.headers["retry-after"] == "1"
    assert (await first).status_code == 201
    after = await _post_once(app, "slow")
    assert after.status_code == 201 and after.headers["idempotent-replayed"] == "true"
    assert len(created) == 2


async def _post_once(app: Starlette, key: str) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        return await c.post("/things", json={"b": 1}, headers={"Idempotency-Key": key})


async def test_reservation_of_a_crashed_request_expires_quickly(redis_client: Redis) -> None:
    """A replica that died mid-request leaves its reservation behind; retries must not get 409 for a day."""
    store = IdempotencyStore(redis_client, lease_s=0.5)
    created: list[dict] = []
    app = slow_app(store, created, delay_s=0)
    assert await store.reserve("acct", "crash", fingerprint("POST", "/things", {"c": 1}))  # then its replica dies
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        blocked = await c.post("/things", json={"c": 1}, headers={"Idempotency-Key": "crash"})
        assert blocked.status_code == 409  # still within the lease
        await asyncio.sleep(0.7)
        retried = await c.post("/things", json={"c": 1}, headers={"Idempotency-Key": "crash"})
    assert retried.status_code == 201 and created == [{"c": 1}]
    ttl = await redis_client.ttl(await _only_idempotency_key(redis_client))
    assert ttl > 23 * 3600  # the stored response is replayed for a day


async def _only_idempotency_key(redis: Redis) -> str:
    [key] = [k async for k in redis.scan_iter(match="mt:idem:*")]
    return key


async def test_charge_once_is_idempotent(redis_client: Redis) -> None:
    account = await AccountStore(redis_client).create("once", quotas={"video_minutes": 10})
    ledger = QuotaLedger(redis_client)
    assert await ledger.consume_once(account, "video_minutes", 4, charge_id="task-a") == 4
    assert await ledger.consume_once(account, "video_minutes", 4, charge_id="task-a") == 4  # a rerun: no second charge
    with pytest.raises(ApiError) as err:
        await ledger.consume_once(account, "video_minutes", 7, charge_id="task-b")
    assert err.value.kind is ErrorKind.QUOTA_EXCEEDED
    assert (await ledger.usage(account))["video_minutes"] == 4
