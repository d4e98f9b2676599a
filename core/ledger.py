"""Per-account ledgers of expiring entries and their sizes, for caps counted over time.

A ledger holds what an account keeps for a while (idempotency records,
output files): for each entry its expiry and its size in bytes, and the
running total of the sizes. It is three keys derived from one prefix
(:func:`ledger_keys`): a sorted set entry → expiry, a hash entry → bytes and
the total. Expired entries are trimmed (and their bytes subtracted) by every
script that reads the ledger, so counting costs only what expired since the
last look. The three keys expire with their last entry.

:data:`LEDGER_LUA` defines the functions the stores' scripts are built from;
each takes the three keys as one Lua table ``{zset, sizes, total}``.
"""

from __future__ import annotations

import time

from redis.asyncio import Redis

#: Lua functions ``ledger_usage`` (trims, then entries and bytes), ``ledger_put``, ``ledger_drop`` and
#: ``ledger_touch`` (a new expiry for an entry); ``now`` and expiries are Unix seconds.
LEDGER_LUA = """
local function ledger_trim(l, now)
  while true do
    local gone = redis.call('ZRANGEBYSCORE', l[1], '-inf', now, 'LIMIT', 0, 500)
    if #gone == 0 then return end
    local freed = 0
    for _, size in ipairs(redis.call('HMGET', l[2], unpack(gone))) do freed = freed + (tonumber(size) or 0) end
    redis.call('HDEL', l[2], unpack(gone))
    redis.call('ZREM', l[1], unpack(gone))
    if freed ~= 0 then redis.call('DECRBY', l[3], freed) end
  end
end

local function ledger_usage(l, now)
  ledger_trim(l, now)
  return redis.call('ZCARD', l[1]), tonumber(redis.call('GET', l[3]) or '0')
end

local function ledger_expire(l)
  local last = redis.call('ZRANGE', l[1], -1, -1, 'WITHSCORES')
  if #last == 0 then redis.call('DEL', l[1], l[2], l[3]) return end
  local at = math.ceil(tonumber(last[2])) + 1
  for i = 1, 3 do redis.call('EXPIREAT', l[i], at) end
end

local function ledger_put(l, member, expires, size)
  local old = tonumber(redis.call('HGET', l[2], member) or '0')
  redis.call('ZADD', l[1], expires, member)
  redis.call('HSET', l[2], member, size)
  redis.call('INCRBY', l[3], size - old)
  ledger_expire(l)
end

local function ledger_drop(l, member)
  local old = tonumber(redis.call('HGET', l[2], member) or '0')
  if redis.call('ZREM', l[1], member) == 1 then
    redis.call('HDEL', l[2], member)
    redis.call('DECRBY', l[3], old)
  end
end

local function ledger_touch(l, member, expires)
  if redis.call('ZADD', l[1], 'XX', 'CH', expires, member) == 1 then ledger_expire(l) end
end
"""

# KEYS: zset, sizes, total. ARGV: now. Returns {entries, bytes} of the live entries.
_USAGE = (
    LEDGER_LUA
    + """
local entries, bytes = ledger_usage(KEYS, tonumber(ARGV[1]))
return {entries, bytes}
"""
)

# KEYS: zset, sizes, total. ARGV: member, expiry, size.
_PUT = (
    LEDGER_LUA
    + """
ledger_put(KEYS, ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
return 1
"""
)


def ledger_keys(prefix: str) -> list[str]:
    """The three keys of the ledger at ``prefix``, in the order the Lua functions take them."""
    return [f"{prefix}:exp", f"{prefix}:size", f"{prefix}:bytes"]


class Ledger:
    """Reads and writes of ledgers outside a store's own scripts."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._usage = redis.register_script(_USAGE)
        self._put = redis.register_script(_PUT)

    async def put(self, prefix: str, member: str, size: int, expires_at: float) -> None:
        """Record (or resize) ``member`` until ``expires_at``."""
        await self._put(keys=ledger_keys(prefix), args=[member, expires_at, size])

    async def usage(self, prefix: str, now: float | None = None) -> tuple[int, int]:
        """(entries, bytes) still live at ``now``."""
        entries, size = await self._usage(keys=ledger_keys(prefix), args=[time.time() if now is None else now])
        return int(entries), int(size)
