"""Idempotency records count against the account's caps while they live, against a real redis-server."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from redis.asyncio import Redis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core import caps, keys
from core.accounts import Account
from core.errors import ApiError, ErrorKind
from core.ledger import Ledger
from serve_app.idempotency import IdempotencyStore, fingerprint
from serve_app.responses import HANDLED, handle_exception


def limits(**overrides: int | None) -> dict[str, int | None]:
    return {**caps.DEFAULTS, **overrides}


async def test_concurrent_new_keys_stop_at_the_record_cap_but_held_keys_still_replay(redis_client: Redis) -> None:
    store = IdempotencyStore(redis_client)
    cap = limits(idempotency_records=4)
    results = await asyncio.gather(*(store.reserve("acct", f"k{i}", "fp", cap) for i in range(15)), return_exceptions=True)
    errors = [r for r in results if isinstance(r, BaseException)]
    assert len(errors) == 11 and all(isinstance(e, ApiError) and e.kind is ErrorKind.QUOTA_EXCEEDED for e in errors)
    assert "(idempotency_records=4)" in str(errors[0])
    held = next(f"k{i}" for i, r in enumerate(results) if not isinstance(r, BaseException))
    assert await store.reserve("acct", held, "fp", cap) is None  # taken: its replay is never refused
    assert await store.reserve("other", "k0", "fp", cap)  # per account


async def test_the_byte_cap_counts_stored_responses(redis_client: Redis) -> None:
    store = IdempotencyStore(redis_client)
    account = Account(id="acct", name="a", created_at=0, caps={caps.IDEMPOTENCY_BYTES: 2000})
    created: list[int] = []
    app = _app(store, account, created, body_bytes=1500)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        assert (await client.post("/v1/glossaries", headers={"Idempotency-Key": "a"})).status_code == 201
        assert (await client.post("/v1/glossaries", headers={"Idempotency-Key": "b"})).status_code == 201  # 1.5 KB held
        refused = await client.post("/v1/glossaries", headers={"Idempotency-Key": "c"})
        replay = await client.post("/v1/glossaries", headers={"Idempotency-Key": "a"})
        plain = await client.post("/v1/glossaries")  # without a key nothing is stored
    assert (refused.status_code, refused.json()["code"]) == (456, 4002)
    assert "(idempotency_bytes=2000)" in refused.json()["message"]
    assert replay.status_code == 201 and replay.headers["idempotent-replayed"] == "true"
    assert plain.status_code == 201 and len(created) == 3
    records, size = await Ledger(redis_client).usage(keys.account_idempotency_ledger("acct"))
    assert records == 2 and size > 3000


async def test_released_and_expired_records_free_their_place(redis_client: Redis) -> None:
    store = IdempotencyStore(redis_client, lease_s=0.3, ttl_s=1)
    account = Account(id="acct", name="a", created_at=0, caps={caps.IDEMPOTENCY_RECORDS: 1})
    created: list[int] = []
    app = _app(store, account, created, body_bytes=10)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        failing = await client.post("/v1/glossaries?fail=1", headers={"Idempotency-Key": "x"})
        assert failing.status_code == 500  # released: its place is free again
        assert (await client.post("/v1/glossaries", headers={"Idempotency-Key": "y"})).status_code == 201
        assert (await client.post("/v1/glossaries", headers={"Idempotency-Key": "z"})).status_code == 456
        await asyncio.sleep(1.2)  # y's stored response expired
        assert (await client.post("/v1/glossaries", headers={"Idempotency-Key": "z"})).status_code == 201
    assert 0 < await redis_client.ttl(keys.account_idempotency_ledger("acct") + ":exp") <= 3


async def test_a_renewed_reservation_keeps_its_place(redis_client: Redis) -> None:
    store = IdempotencyStore(redis_client, lease_s=0.3)
    account = Account(id="acct", name="a", created_at=0, caps={caps.IDEMPOTENCY_RECORDS: 1})
    app = _app(store, account, [], body_bytes=10, delay_s=1.0)  # runs for several leases
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        slow = asyncio.create_task(client.post("/v1/glossaries", headers={"Idempotency-Key": "slow"}))
        await asyncio.sleep(0.7)
        other = await client.post("/v1/glossaries", headers={"Idempotency-Key": "other"})
        assert (await slow).status_code == 201
    assert other.status_code == 456


def _app(store: IdempotencyStore, account: Account, created: list[int], body_bytes: int, delay_s: float = 0.0) -> Starlette:
    """A create route as the service has them: the caller authenticated, its caps on ``request.state``."""

    async def create(request: Request) -> Response:
        request.state.account = account

        async def do() -> JSONResponse:
            await asyncio.sleep(delay_s)
            if request.query_params.get("fail"):
                return JSONResponse({"message": "boom"}, status_code=500)
            created.append(len(created))
            return JSONResponse({"id": len(created), "pad": "x" * body_bytes}, status_code=201)

        return await store.run(request, account.id, fingerprint("POST", "/v1/glossaries", {}), do)

    return Starlette(
        routes=[Route("/v1/glossaries", create, methods=["POST"])],
        exception_handlers={cls: handle_exception for cls in HANDLED},
    )


async def test_unlimited_caps_are_never_checked(redis_client: Redis) -> None:
    store = IdempotencyStore(redis_client)
    with pytest.raises(ApiError):
        await store.reserve("acct", "k", "fp", limits(idempotency_records=0))
    for i in range(3):
        assert await store.reserve("acct", f"k{i}", "fp", limits(idempotency_records=None, idempotency_bytes=None))
