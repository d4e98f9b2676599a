"""Monthly plan quotas: usage counters checked against the account's limits, atomically in Redis.

A counter is only incremented when the whole amount fits. A charge can carry
an id (:meth:`QuotaLedger.consume_once`): the marker is written in the same
script as the increment, so a worker that reruns a task after a crash never
charges it twice.
"""

from __future__ import annotations

import time

from redis.asyncio import Redis

from core import keys, metrics
from core.accounts import QUOTA_METRICS, Account
from core.errors import ApiError, ErrorKind

# KEYS: counter, charge marker (optional). ARGV: amount, limit (-1: none), counter TTL, marker TTL.
# Returns {1, used} when charged, {2, used} for a repeated charge id (nothing charged), {0, used} when refused.
_QUOTA = """
if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then
  return {2, tonumber(redis.call('GET', KEYS[1]) or '0')}
end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
if limit >= 0 and used + amount > limit then
  return {0, used}
end
used = redis.call('INCRBY', KEYS[1], amount)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
if KEYS[2] then redis.call('SET', KEYS[2], ARGV[1], 'EX', tonumber(ARGV[4])) end
return {1, used}
"""


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
        return await self._consume(account, metric, amount, [keys.quota(account.id, metric, current_period())])

    async def consume_once(self, account: Account, metric: str, amount: int, charge_id: str) -> int:
        """:meth:`consume`, at most once per ``charge_id`` (a repeat is a no-op that succeeds)."""
        counter = keys.quota(account.id, metric, current_period())
        return await self._consume(account, metric, amount, [counter, keys.quota_charge(f"{charge_id}:{metric}")])

    async def _consume(self, account: Account, metric: str, amount: int, script_keys: list[str]) -> int:
        limit = account.quotas.get(metric)
        ok, used = await self._script(
            keys=script_keys, args=[amount, -1 if limit is None else limit, keys.QUOTA_COUNTER_TTL_S, keys.TASK_RECORD_TTL_S]
        )
        if not int(ok):
            metrics.quota_refused(metric)
            raise ApiError(
                ErrorKind.QUOTA_EXCEEDED,
                f"Monthly quota for {metric} exhausted ({used} of {limit} used; this request needs {amount}).",
                headers={"Retry-After": str(seconds_to_next_period())},
            )
        if int(ok) == 1:
            metrics.quota_charged(account.id, metric, amount)
        return int(used)

    async def refund(self, account: Account, metric: str, amount: int = 1, *, charged_at: float | None = None) -> None:
        """Give back usage consumed by a request that was then refused (or whose work failed later).

        ``charged_at`` (default now) picks the month the usage was counted in, so a refund never lands in a later one.
        """
        await self.redis.decrby(keys.quota(account.id, metric, current_period(charged_at)), amount)

    async def usage(self, account: Account) -> dict[str, int]:
        period = current_period()
        values = await self.redis.mget([keys.quota(account.id, m, period) for m in QUOTA_METRICS])
        return {m: int(v or 0) for m, v in zip(QUOTA_METRICS, values)}
