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

Every record counts against the account's ``idempotency_records`` and
``idempotency_bytes`` caps (:mod:`core.caps`) while it lives: a ledger
(:mod:`core.ledger`) follows each record's expiry and size, written in the
same script as the record. A new key is refused with QUOTA_EXCEEDED when the
account is at a cap (a replay of a key it holds never is); the response
stored after it may pass the byte cap by that one response.

Fingerprints are computed by the route from the parsed request (canonical
JSON, or multipart fields plus the uploaded file's digest), so two sends of
the same request with different multipart boundaries match.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from redis.asyncio import Redis
from starlette.requests import Request
from starlette.responses import Response

from core import caps, keys
from core.errors import ApiError, ErrorKind
from core.ledger import LEDGER_LUA, ledger_keys

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
_REPLAYED = "Idempotent-Replayed"
_RUNNING = "running"

# Every script: KEYS: the record, then the account's ledger (3 keys). ARGV[1]: now (s); ARGV[2]: the ledger member.

# ARGV: now, member, reservation JSON, lease (ms), record cap, bytes cap (-1: unlimited).
# Returns {'ok'}, {'taken'} (replay it) or {cap name, used}.
_RESERVE = (
    LEDGER_LUA
    + """
local l = {KEYS[2], KEYS[3], KEYS[4]}
local now = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then return {'taken'} end
local records, bytes = ledger_usage(l, now)
if tonumber(ARGV[5]) >= 0 and records >= tonumber(ARGV[5]) then return {'idempotency_records', records} end
if tonumber(ARGV[6]) >= 0 and bytes >= tonumber(ARGV[6]) then return {'idempotency_bytes', bytes} end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
ledger_put(l, ARGV[2], now + tonumber(ARGV[4]) / 1000, string.len(ARGV[3]))
return {'ok'}
"""
)

# Extends a reservation only while it is one: a late renewal never shortens a stored response's life.
# ARGV: now, member, lease (ms), the reservation state.
_EXTEND = (
    LEDGER_LUA
    + """
local raw = redis.call('GET', KEYS[1])
if raw and cjson.decode(raw)['state'] == ARGV[4] then
  ledger_touch({KEYS[2], KEYS[3], KEYS[4]}, ARGV[2], tonumber(ARGV[1]) + tonumber(ARGV[3]) / 1000)
  return redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 0
"""
)

# ARGV: now, member, stored response JSON, its TTL (s).
_STORE = (
    LEDGER_LUA
    + """
redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[4])
ledger_put({KEYS[2], KEYS[3], KEYS[4]}, ARGV[2], tonumber(ARGV[1]) + tonumber(ARGV[4]), string.len(ARGV[3]))
return 1
"""
)

# ARGV: now, member.
_RELEASE = (
    LEDGER_LUA
    + """
redis.call('DEL', KEYS[1])
ledger_drop({KEYS[2], KEYS[3], KEYS[4]}, ARGV[2])
return 1
"""
)


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
        self._reserve = redis.register_script(_RESERVE)
        self._extend = redis.register_script(_EXTEND)
        self._store = redis.register_script(_STORE)
        self._release = redis.register_script(_RELEASE)

    async def run(
        self,
        request: Request,
        account_id: str,
        request_fingerprint: str,
        create: Callable[[], Awaitable[Response]],
    ) -> Response:
        """Run ``create`` once per (account, key); replay its response afterwards.

        The account's caps are those of the authenticated caller (``request.state.account``).
        """
        key = request.headers.get(HEADER)
        if key is None:
            return await create()
        if not key or len(key) > MAX_KEY_LENGTH:
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"{HEADER} must be 1 to {MAX_KEY_LENGTH} characters.")
        limits = caps.resolve(getattr(request.state, "account", None))
        record = await self.reserve(account_id, key, request_fingerprint, limits)
        if record is None:
            return await self._replay(keys.idempotency(account_id, _digest(key)), request_fingerprint)
        renewal = asyncio.create_task(self._renew(record))
        try:
            response = await create()
        except BaseException:
            renewal.cancel()
            await self._release(keys=record.keys, args=[time.time(), record.member])
            raise
        renewal.cancel()
        if response.status_code >= 500:
            await self._release(keys=record.keys, args=[time.time(), record.member])
            return response
        stored = json.dumps(_stored(response, request_fingerprint))
        await self._store(keys=record.keys, args=[time.time(), record.member, stored, self.ttl_s])
        return response

    async def reserve(
        self, account_id: str, key: str, request_fingerprint: str, limits: Mapping[str, int | None] = caps.DEFAULTS
    ) -> _Record | None:
        """Take ``key`` for a first request (for one lease); None when it is taken; QUOTA_EXCEEDED at a cap."""
        digest = _digest(key)
        record = _Record(
            [keys.idempotency(account_id, digest), *ledger_keys(keys.account_idempotency_ledger(account_id))], digest
        )
        reserved = json.dumps({"state": _RUNNING, "fp": request_fingerprint})
        record_cap = caps.script_value(limits, caps.IDEMPOTENCY_RECORDS)
        bytes_cap = caps.script_value(limits, caps.IDEMPOTENCY_BYTES)
        outcome = await self._reserve(
            keys=record.keys, args=[time.time(), digest, reserved, self.lease_ms, record_cap, bytes_cap]
        )
        if outcome[0] == "taken":
            return None
        if outcome[0] != "ok":
            name = str(outcome[0])
            raise caps.exceeded(name, int(outcome[1]), record_cap if name == caps.IDEMPOTENCY_RECORDS else bytes_cap)
        return record

    async def _renew(self, record: _Record) -> None:
        """Keep the reservation while the first request runs (never touching a stored response)."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            with contextlib.suppress(Exception):
                await self._extend(keys=record.keys, args=[time.time(), record.member, self.lease_ms, _RUNNING])

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


@dataclasses.dataclass(frozen=True)
class _Record:
    """A reserved key: its Redis key and ledger keys (as the scripts take them), and its ledger member."""

    keys: list[str]
    member: str


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
