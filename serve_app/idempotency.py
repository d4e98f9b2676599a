"""``Idempotency-Key`` support for every POST that creates something.

The first request with a key reserves it (SET NX) together with a fingerprint
of the request; when it finishes, its response is stored under the key for
24 hours. A retry with the same key and the same fingerprint gets the stored
response byte for byte, and nothing is created twice. The same key with a
different request is refused with IDEMPOTENCY_CONFLICT, as is a retry that
arrives while the first request is still running (with ``Retry-After``).
A failed first request (5xx or an exception) releases the key so the client
can retry.

Fingerprints are computed by the route from the parsed request (canonical
JSON, or multipart fields plus the uploaded file's digest), so two sends of
the same request with different multipart boundaries match.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
from starlette.requests import Request
from starlette.responses import Response

from serve_app import keys
from serve_app.errors import ApiError, ErrorKind

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
_REPLAYED = "Idempotent-Replayed"


def fingerprint(method: str, path: str, payload: Any) -> str:
    """A stable digest of a parsed request."""
    canonical = json.dumps([method, path, payload], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


class IdempotencyStore:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis

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
        redis_key = keys.idempotency(account_id, hashlib.sha256(key.encode()).hexdigest())
        reserved = json.dumps({"state": "running", "fp": request_fingerprint})
        if not await self.redis.set(redis_key, reserved, nx=True, ex=keys.IDEMPOTENCY_TTL_S):
            return await self._replay(redis_key, request_fingerprint)
        try:
            response = await create()
        except BaseException:
            await self.redis.delete(redis_key)
            raise
        if response.status_code >= 500:
            await self.redis.delete(redis_key)
            return response
        await self.redis.set(redis_key, json.dumps(_stored(response, request_fingerprint)), ex=keys.IDEMPOTENCY_TTL_S)
        return response

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
        if stored["state"] == "running":
            raise ApiError(
                ErrorKind.IDEMPOTENCY_CONFLICT,
                f"A request with this {HEADER} is still being processed.",
                headers={"Retry-After": "1"},
            )
        headers = dict(stored["headers"])
        headers[_REPLAYED] = "true"
        return Response(stored["body"].encode(), status_code=stored["status"], headers=headers)


def _stored(response: Response, request_fingerprint: str) -> dict[str, Any]:
    kept = {k: v for k, v in response.headers.items() if k.lower() in ("content-type", "location")}
    return {
        "state": "done",
        "fp": request_fingerprint,
        "status": response.status_code,
        "headers": kept,
        "body": bytes(response.body).decode(),
    }
