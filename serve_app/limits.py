"""Per-account and per-client rate limits, enforced atomically in Redis.

Rate limiting uses GCRA (the generic cell rate algorithm): one key per caller
holding the theoretical arrival time, so a check is a single script call and
the ``Retry-After`` value is exact. Monthly quotas are in :mod:`core.quotas`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis

from core import keys
from core.accounts import DEFAULT_BURST, DEFAULT_RATE_PER_MINUTE, Account
from core.errors import ApiError, ErrorKind

# The one GCRA implementation: returns allowed (0/1), excess seconds, remaining burst, and the
# seconds until the whole burst is available again (the theoretical arrival time minus now).
_GCRA = """
local function gcra(key, rate, burst, ttl)
  local interval = 60 / rate
  local capacity = interval * burst
  local t = redis.call('TIME')
  local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
  local tat = tonumber(redis.call('GET', key) or now)
  if tat < now then tat = now end
  local new_tat = tat + interval
  local excess = new_tat - now - capacity
  if excess > 0 then return 0, excess, 0, tat - now end
  redis.call('SET', key, tostring(new_tat), 'EX', ttl)
  return 1, 0, math.floor((capacity - (new_tat - now)) / interval), new_tat - now
end
"""

# Token lookup, account read, the GCRA check and the endpoint's first reads in
# one round trip: this runs on every authenticated request. Keys are derived
# inside the script (the account id is only known after the token lookup), so
# it targets a single Redis node. Prefetched keys may contain ``{account}``;
# strings come back as values, hashes as flat field/value lists, others as nil.
_AUTHENTICATE = (
    _GCRA
    + """
local id = redis.call('GET', ARGV[1])
if not id then return {} end
local fields = redis.call('HGETALL', ARGV[2] .. id)
if #fields == 0 then return {} end
local acct = {}
for i = 1, #fields, 2 do acct[fields[i]] = fields[i + 1] end
if acct['disabled'] == '1' then return {fields, -1, '0', '0', '0'} end
local rate = math.max(tonumber(acct['rate_per_minute'] or ARGV[5]), 1)
local burst = math.max(tonumber(acct['burst'] or ARGV[6]), 1)
local allowed, excess, remaining, reset = gcra(ARGV[3] .. id, rate, burst, tonumber(ARGV[4]))
if allowed == 0 then return {fields, 0, tostring(excess), '0', tostring(reset)} end
local out = {fields, 1, '0', tostring(remaining), tostring(reset)}
for i = 7, #ARGV do
  local target = string.gsub(ARGV[i], '{account}', id)
  local kind = redis.call('TYPE', target)['ok']
  if kind == 'hash' then out[#out + 1] = redis.call('HGETALL', target)
  elseif kind == 'string' then out[#out + 1] = redis.call('GET', target)
  else out[#out + 1] = false end
end
return out
"""
)


# KEYS: the caller's GCRA key. ARGV: rate per minute, burst, key TTL.
_ANONYMOUS = (
    _GCRA
    + """
local allowed, excess, remaining = gcra(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
return {allowed, tostring(excess), remaining}
"""
)


@dataclasses.dataclass(frozen=True)
class RateDecision:
    """One GCRA check.

    Attributes:
        retry_after_s: when refused, how long until one more request fits.
        remaining: requests that fit right now, after this one (the unused burst).
        reset_s: seconds until the whole burst is available again.
    """

    allowed: bool
    retry_after_s: float
    remaining: int
    reset_s: float = 0.0


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
        fields, allowed, excess, remaining, reset, *prefetched = reply
        account = Account.from_redis(dict(zip(fields[::2], fields[1::2])))
        if int(allowed) < 0:
            return Admission(account, True, RateDecision(False, 0.0, 0))
        decision = RateDecision(bool(int(allowed)), float(excess), int(remaining), float(reset))
        return Admission(account, False, decision, tuple(prefetched))

    @staticmethod
    def refuse(account: Account, decision: RateDecision) -> ApiError:
        retry = max(1, math.ceil(decision.retry_after_s))
        return ApiError(
            ErrorKind.RATE_LIMITED,
            f"Rate limit of {account.rate_per_minute} requests per minute exceeded; retry in {retry} s.",
            headers={"Retry-After": str(retry)},
        )


class AnonymousLimiter:
    """GCRA per client address for the endpoints that need no token (``/v1/languages``)."""

    def __init__(self, redis: Redis, rate_per_minute: int, burst: int) -> None:
        self.rate_per_minute = rate_per_minute
        self.burst = burst
        self._script = redis.register_script(_ANONYMOUS)

    async def check(self, client: str) -> None:
        """Raise RATE_LIMITED with an exact ``Retry-After`` when ``client`` is over its rate."""
        allowed, excess, _remaining = await self._script(
            keys=[keys.anonymous_rate_limit(client)], args=[self.rate_per_minute, self.burst, keys.RATE_LIMIT_TTL_S]
        )
        if not int(allowed):
            retry = max(1, math.ceil(float(excess)))
            raise ApiError(
                ErrorKind.RATE_LIMITED,
                f"Rate limit of {self.rate_per_minute} requests per minute per client exceeded; retry in {retry} s.",
                headers={"Retry-After": str(retry)},
            )
