"""Per-account concurrent streams (``POST /v1/tts``), counted in Redis across every ingress replica.

Each open stream is a member of the account's sorted set, scored by the time
its lease runs out. The holder renews the lease while it streams and removes
the member when the stream ends; a replica that dies stops renewing, so its
streams drop out of the count one lease later instead of holding the slots
for ever. Trimming expired members, counting and adding run in one script,
so concurrent requests cannot overshoot the limit.
"""

from __future__ import annotations

import asyncio
import logging
import uuid

from redis.asyncio import Redis

from core import caps, keys
from core.accounts import Account
from core.errors import ApiError, ErrorKind

log = logging.getLogger("mediatrans.streams")

#: Seconds a stream holds its slot without renewal (a dead replica's slots are free again after this).
LEASE_S = 30
#: How often a live stream renews its lease; well inside ``LEASE_S`` so one slow renewal loses nothing.
RENEW_EVERY_S = 10
#: ``Retry-After`` of a refused stream: a stream cannot say when it will end, so a short fixed wait.
RETRY_AFTER_S = 2

# KEYS: the account's stream set. ARGV: stream id, limit (-1: none), lease seconds. Returns 1 when added.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local limit = tonumber(ARGV[2])
if limit >= 0 and redis.call('ZCARD', KEYS[1]) >= limit then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""

# KEYS: the account's stream set. ARGV: stream id, lease seconds. Extends a lease still held; 0 if it was lost.
_RENEW = """
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
"""


def tts_stream_limit(account: Account) -> int | None:
    """Concurrent TTS streams the account may hold: its ``tts_streams`` cap (None: unlimited)."""
    return caps.effective(account, caps.TTS_STREAMS)


_removals: set[asyncio.Future[None]] = set()


class StreamSlot:
    """One held slot: renews its lease until :meth:`release` (safe to call more than once, and while cancelled)."""

    def __init__(self, slots: StreamSlots, key: str, member: str) -> None:
        self._slots = slots
        self.key = key
        self.member = member
        self._renewer = asyncio.create_task(self._renew_forever())
        self._released = False

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self._slots.renew_every_s)
            try:
                await self._slots.renew(self)
            except Exception as exc:  # Redis briefly away: the lease covers a few missed renewals
                log.warning("stream lease renewal failed: %s", exc)

    async def release(self) -> None:
        if self._released:
            return
        self._released = True
        self._renewer.cancel()
        # The request may itself be cancelled (client gone): the removal runs on, shielded, and is kept referenced.
        removal = asyncio.ensure_future(self._slots.remove(self))
        _removals.add(removal)
        removal.add_done_callback(_removals.discard)
        await asyncio.shield(removal)


class StreamSlots:
    """The per-account stream limiter of one kind of stream (``tts``)."""

    def __init__(self, redis: Redis, kind: str = "tts", lease_s: int = LEASE_S, renew_every_s: float = RENEW_EVERY_S) -> None:
        self.kind = kind
        self.lease_s = lease_s
        self.renew_every_s = renew_every_s
        self._redis = redis
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)

    async def acquire(self, account: Account, limit: int | None) -> StreamSlot:
        """A slot of ``account``'s, or RATE_LIMITED (429 4001) with ``Retry-After`` when ``limit`` are open."""
        key = keys.account_streams(account.id, self.kind)
        member = uuid.uuid4().hex
        limit_arg = -1 if limit is None else limit
        if not int(await self._acquire(keys=[key], args=[member, limit_arg, self.lease_s])):
            raise ApiError(
                ErrorKind.RATE_LIMITED,
                f"At most {limit} concurrent {self.kind.upper()} streams per account; retry in {RETRY_AFTER_S} s.",
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )
        return StreamSlot(self, key, member)

    async def renew(self, slot: StreamSlot) -> bool:
        return bool(int(await self._renew(keys=[slot.key], args=[slot.member, self.lease_s])))

    async def remove(self, slot: StreamSlot) -> None:
        await self._redis.zrem(slot.key, slot.member)

    async def open_count(self, account_id: str) -> int:
        """Streams the account holds now (expired leases not counted)."""
        now = (await self._redis.time())[0]
        return int(await self._redis.zcount(keys.account_streams(account_id, self.kind), f"({now}", "+inf"))
