"""Per-account rate limits and monthly plan quotas, enforced atomically in Redis.

Rate limiting uses GCRA (the generic cell rate algorithm): one key per account
holding the theoretical arrival time, so a check is a single script call and
the ``Retry-After`` value is exact. Quotas are monthly counters that are only
incremented when the whole amount fits.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis

from serve_app import keys
from serve_app.accounts import DEFAULT_BURST, DEFAULT_RATE_PER_MINUTE, QUOTA_METRICS, Account
from serve_app.errors import ApiError, ErrorKind

# Token lookup, account read, the GCRA check and the endpoint's first reads in
# one round trip: this runs on every authenticated request. Keys are derived
# inside the script (the account id is only known after the token lookup), so
# it targets a single Redis node. Prefetched keys may contain ``{account}``;
# strings come back as values, hashes as flat field/value lists, others as nil.
_AUTHENTICATE = """
local id = redis.call('GET', ARGV[1])
if not id then return {} end
local fields = redis.call('HGETALL', ARGV[2] .. id)
if #fields == 0 then return {} end
local acct = {}
for i = 1, #fields, 2 do acct[fields[i]] = fields[i + 1] end
if acct['disabled'] == '1' then return {fields, -1, '0', '0'} end
local rate = math.max(tonumber(acct['rate_per_minute'] or ARGV[5]), 1)
local burst = math.max(tonumber(acct['burst'] or ARGV[6]), 1)
local interval = 60 / rate
local capacity = interval * burst
local key = ARGV[3] .. id
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local tat = tonumber(redis.call('GET', key) or now)
if tat < now then tat = now end
local new_tat = tat + interval
local excess = new_tat - now - capacity
if excess > 0 then return {fields, 0, tostring(excess), '0'} end
redis.call('SET', key, tostring(new_tat), 'EX', tonumber(ARGV[4]))
local out = {fields, 1, '0', tostring(math.floor((capacity - (new_tat - now)) / interval))}
for i = 7, #ARGV do
  local target = string.gsub(ARGV[i], '{account}', id)
  local kind = redis.call('TYPE', target)['ok']
  if kind == 'hash' then out[#out + 1] = redis.call('HGETALL', target)
  elseif kind == 'string' then out[#out + 1] = redis.call('GET', target)
  else out[#out + 1] = false end
end
return out
"""

_QUOTA = """
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
if used + amount > limit then
  return {0, used}
end
used = redis.call('INCRBY', KEYS[1], amount)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return {1, used}
"""


@dataclasses.dataclass(frozen=True)
class RateDecision:
    allowed: bool
    retry_after_s: float
    remaining: int


@dataclasses.dataclass(frozen=True)
class Admission:
    """Who a token belongs to and whether this request fits its rate limit."""

    account: Account
    disabled: bool
    rate: RateDecision
    prefetched: tuple[Any, ...] = ()


class RateLimiter:
    """GCRA limiter: ``rate_per_minute`` sustained, ``burst`` at once."""

    def __init__(self, redis: Redis) -> None:
        self._authenticate = redis.register_script(_AUTHENTICATE)

    async def admit(self, token_hash: str, prefetch: Sequence[str] = ()) -> Admission | None:
        """Token → account → rate decision (→ ``prefetch`` reads when admitted) in one call.

        None for an unknown token.
        """
        reply = await self._authenticate(
            keys=[],
            args=[
                keys.token(token_hash),
                keys.account(""),
                keys.rate_limit(""),
                keys.RATE_LIMIT_TTL_S,
                DEFAULT_RATE_PER_MINUTE,
                DEFAULT_BURST,
                *prefetch,
            ],
        )
        if not reply:
            return None
        fields, allowed, excess, remaining, *prefetched = reply
        account = Account.from_redis(dict(zip(fields[::2], fields[1::2])))
        if int(allowed) < 0:
            return Admission(account, True, RateDecision(False, 0.0, 0))
        decision = RateDecision(bool(int(allowed)), float(excess), int(remaining))
        return Admission(account, False, decision, tuple(prefetched))

    @staticmethod
    def refuse(account: Account, decision: RateDecision) -> ApiError:
        retry = max(1, math.ceil(decision.retry_after_s))
        return ApiError(
            ErrorKind.RATE_LIMITED,
            f"Rate limit of {account.rate_per_minute} requests per minute exceeded; retry in {retry} s.",
            headers={"Retry-After": str(retry)},
        )


def current_period(now: float | None = None) -> str:
    return time.strftime("%Y-%m", time.gmtime(now if now is not None else time.time()))


def seconds_to_next_period(now: float | None = None) -> int:
    now = now if now is not None else time.time()
    tm = time.gmtime(now)
    year, month = (tm.tm_year + 1, 1) if tm.tm_mon == 12 else (tm.tm_year, tm.tm_mon + 1)
    start = time.mktime((year, month, 1, 0, 0, 0, 0, 0, 0)) - time.timezone
    return max(1, int(start - now))


class QuotaLedger:
    """Monthly usage counters checked against the account's plan limits."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._script = redis.register_script(_QUOTA)

    async def consume(self, account: Account, metric: str, amount: int = 1) -> int:
        """Record ``amount`` of ``metric``; raise QUOTA_EXCEEDED if it does not fit."""
        key = keys.quota(account.id, metric, current_period())
        limit = account.quotas.get(metric)
        if limit is None:
            used = await self.redis.incrby(key, amount)
            await self.redis.expire(key, keys.QUOTA_COUNTER_TTL_S)
            return int(used)
        ok, used = await self._script(keys=[key], args=[amount, limit, keys.QUOTA_COUNTER_TTL_S])
        if not int(ok):
            raise ApiError(
                ErrorKind.QUOTA_EXCEEDED,
                f"Monthly quota for {metric} exhausted ({used} of {limit} used; this request needs {amount}).",
                headers={"Retry-After": str(seconds_to_next_period())},
            )
        return int(used)

    async def refund(self, account: Account, metric: str, amount: int = 1) -> None:
        """Give back usage consumed by a request that was then refused."""
        await self.redis.decrby(keys.quota(account.id, metric, current_period()), amount)

    async def usage(self, account: Account) -> dict[str, int]:
        period = current_period()
        values = await self.redis.mget([keys.quota(account.id, m, period) for m in QUOTA_METRICS])
        return {m: int(v or 0) for m, v in zip(QUOTA_METRICS, values)}
