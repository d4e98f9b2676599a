"""``Idempotency-Key`` support for every POST that creates something.

The first request with a key reserves it (SET NX) together with a fingerprint
of the request, for a short lease (``IDEMPOTENCY_LEASE_S``) that it renews
while it runs; when it finishes, its response is stored under the key for
24 hours. A retry with the same key and the same fingerprint gets the stored
response byte for byte, and nothing is created twice. The same key with a
different request is refused with IDEMPOTENCY_CONFLICT, as is a retry that
arrives while the first request is still running (with ``Retry-After``).
A failed first request (5xx or an exception) releases the key so the client
can retry; a first request whose replica died mid-way stops renewing, and
its lease runs out within ``IDEMPOTENCY_LEASE_S``, so the retry is not
locked out for a day.

Fingerprints are computed by the route from the parsed request (canonical
JSON, or multipart fields plus the uploaded file's digest), so two sends of
the same request with different multipart boundaries match.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
from starlette.requests import Request
from starlette.responses import Response

from core import keys
from core.errors import ApiError, ErrorKind

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
_REPLAYED = "Idempotent-Replayed"
_RUNNING = "running"

# Extends a reservation only while it is one: a late renewal never shortens a stored response's life.
_EXTEND = """
local raw = redis.call('GET', KEYS[1])
if raw and cjson.decode(raw)['state'] == ARGV[2] then return redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 0
"""


def fingerprint(method: str, path: str, payload: Any) -> str:
    """A stable digest of a parsed request."""
    canonical = json.dumps([method, path, payload], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


class IdempotencyStore:
    """Reservations and stored responses.

    Args:
        redis: async client with decoded responses.
        lease_s: how long a reservation lives unless renewed (renewed every third of it).
        ttl_s: how long a finished response is replayed.
    """

    def __init__(self, redis: Redis, lease_s: float = keys.IDEMPOTENCY_LEASE_S, ttl_s: int = keys.IDEMPOTENCY_TTL_S) -> None:
        self.redis = redis
        self.lease_ms = max(1, int(lease_s * 1000))
        self.ttl_s = ttl_s
        self._extend = redis.register_script(_EXTEND)

    async def run(
        self,
        request: Request,
        account_id: str,
        request_fingerprint: str,
        create: Callable[[], Awaitable[Response]],
    ) -> Response:
        """Run ``create`` once per (account, key); replay its response afterwards."""
        key = request.headers.get(HEADER)
        if key is None:
            return await create()
        if not key or len(key) > MAX_KEY_LENGTH:
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"{HEADER} must be 1 to {MAX_KEY_LENGTH} characters.")
        redis_key = await self.reserve(account_id, key, request_fingerprint)
        if redis_key is None:
            return await self._replay(keys.idempotency(account_id, _digest(key)), request_fingerprint)
        renewal = asyncio.create_task(self._renew(redis_key))
        try:
            response = await create()
        except BaseException:
            renewal.cancel()
            await self.redis.delete(redis_key)
            raise
        renewal.cancel()
        if response.status_code >= 500:
            await self.redis.delete(redis_key)
            return response
        await self.redis.set(redis_key, json.dumps(_stored(response, request_fingerprint)), ex=self.ttl_s)
        return response

    async def reserve(self, account_id: str, key: str, request_fingerprint: str) -> str | None:
        """Take ``key`` for a first request (for one lease); its Redis key, or None when it is taken."""
        redis_key = keys.idempotency(account_id, _digest(key))
        reserved = json.dumps({"state": _RUNNING, "fp": request_fingerprint})
        return redis_key if await self.redis.set(redis_key, reserved, nx=True, px=self.lease_ms) else None

    async def _renew(self, redis_key: str) -> None:
        """Keep the reservation while the first request runs (never touching a stored response)."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            with contextlib.suppress(Exception):
                await self._extend(keys=[redis_key], args=[self.lease_ms, _RUNNING])

    async def _replay(self, redis_key: str, request_fingerprint: str) -> Response:
        raw = await self.redis.get(redis_key)
        if raw is None:  # released between our SET and GET: the first attempt failed
            raise ApiError(
                ErrorKind.IDEMPOTENCY_CONFLICT, "The first request with this key failed; retry it.", headers={"Retry-After": "1"}
            )
        stored = json.loads(raw)
        if stored["fp"] != request_fingerprint:
            raise ApiError(
                ErrorKind.IDEMPOTENCY_CONFLICT,
                f"This {HEADER} was already used with a different request body.",
            )
        if stored["state"] == _RUNNING:
            raise ApiError(
                ErrorKind.IDEMPOTENCY_CONFLICT,
                f"A request with this {HEADER} is still being processed.",
                headers={"Retry-After": "1"},
            )
        headers = dict(stored["headers"])
        headers[_REPLAYED] = "true"
        return Response(stored["body"].encode(), status_code=stored["status"], headers=headers)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _stored(response: Response, request_fingerprint: str) -> dict[str, Any]:
    kept = {k: v for k, v in response.headers.items() if k.lower() in ("content-type", "location")}
    return {
        "state": "done",
        "fp": request_fingerprint,
        "status": response.status_code,
        "headers": kept,
        "body": bytes(response.body).decode(),
    }
