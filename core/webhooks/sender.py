"""Task callbacks (contract section 6): signed POSTs, retried, with a delivery record.

When a task submitted with ``callback_url`` ends, the job runner calls
:meth:`WebhookSender.schedule`. A delivery loop (independent of job slots)
calls :meth:`WebhookSender.deliver_due` every second and at once after each
scheduling; deliveries live in Redis, so a restart loses nothing and several
senders can share the work. What is sent and how it is signed is in
:mod:`core.webhooks.payloads`.

Redis layout (names in :mod:`core.keys`):

* ``hook:<task_id>`` hash: the delivery record (7 days TTL). The JSON body,
  the ``X-Signature`` and the signing secret are fixed at scheduling time, so
  every attempt sends the same bytes, signed with the same key; only the
  Standard Webhooks timestamp and signature are made per attempt.
* ``hook-due`` sorted set: task ids by the time their next attempt is due.
* ``hook-sending`` sorted set: task ids being sent, by lease deadline.

A Lua script moves due ids from ``hook-due`` to ``hook-sending`` in one
step, so two senders never both take one delivery. Finishing an attempt is a
second script that only writes when the sender still holds the lease. A
sender that dies mid-attempt leaves its lease to expire, and the next
``deliver_due`` puts the delivery back in line.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import time
import uuid
from typing import Any

import httpx
from redis.asyncio import Redis

from core import keys, metrics
from core.accounts import Account, AccountStore
from core.tasks import Task
from core.webhooks.payloads import backoff_delay, payload_for, sign, standard_headers
from engines.errors import InvalidUrl
from engines.net.fetch import pinned_client, send_pinned
from engines.net.urls import UrlPolicy, check_url

log = logging.getLogger("mediatrans.webhooks")

PENDING, DELIVERED, GAVE_UP = "pending", "delivered", "gave_up"
USER_AGENT = "mediatrans-webhooks/1.0"
LEASE_MARGIN_S = 60.0  # a lease outlives the attempt's own deadline by this much

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HGET', KEYS[1], 'id') end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('EXPIRE', KEYS[1], ARGV[1])
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3]) end
return false
"""

_CLAIM = """
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for _, id in ipairs(stale) do
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', KEYS[1], ARGV[1], id)
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZADD', KEYS[2], ARGV[2], id)
end
return ids
"""

_FINISH = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
redis.call('HSET', KEYS[3], unpack(ARGV, 4))
redis.call('EXPIRE', KEYS[3], ARGV[2])
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) end
return 1
"""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one attempt got: success (any 2xx), the HTTP status if any, and an error text."""

    ok: bool
    status: int | None
    error: str


class WebhookSender:
    """Schedules, sends and records task callbacks.

    Args:
        redis: async client (decoded responses).
        policy: where callbacks may go; checked at scheduling and again, with
            fresh DNS, before every attempt.
        timeout_s: deadline of one attempt, connection included.
        max_attempts: attempts before the delivery is marked ``gave_up``.
        base_delay_s, max_delay_s: retry schedule, see :func:`backoff_delay`.
        batch_size: deliveries one :meth:`deliver_due` call takes at most.
        rng: randomness of the jitter (seedable in tests).
    """

    def __init__(
        self,
        redis: Redis,
        policy: UrlPolicy,
        timeout_s: float = 10,
        max_attempts: int = 8,
        base_delay_s: float = 2,
        max_delay_s: float = 600,
        *,
        batch_size: int = 32,
        rng: random.Random | None = None,
    ) -> None:
        self.redis = redis
        self.policy = policy
        self.timeout_s = timeout_s
        self.max_attempts = max_attempts
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self.batch_size = batch_size
        self.rng = rng or random.Random()
        self._create = redis.register_script(_CREATE)
        self._claim = redis.register_script(_CLAIM)
        self._finish = redis.register_script(_FINISH)

    async def schedule(self, task: Task, account: Account) -> str | None:
        """Record the callback of a finished ``task``; returns the delivery id.

        None when the task has no ``callback_url``. Scheduling twice keeps the
        first delivery. A URL the policy refuses outright (bad scheme, private
        IP literal) is recorded as ``gave_up`` without any attempt.
        """
        url = str(task.params.get("callback_url") or "")
        if not url:
            return None
        if not task.status.terminal:
            raise ValueError(f"task {task.task_id} is {task.status.value}; callbacks are sent when it ends")
        now = time.time()
        record = self._new_record(task, account, url, now)
        due = str(now) if record["state"] == PENDING else ""
        existing = await self._create(
            keys=[keys.webhook_delivery(task.task_id), keys.webhook_due()],
            args=[keys.WEBHOOK_DELIVERY_TTL_S, due, task.task_id, *_flatten(record)],
        )
        if not existing and record["state"] == GAVE_UP:
            metrics.webhook_delivery("refused")
        return _text(existing) if existing else record["id"]

    async def deliver_due(self, now: float | None = None) -> int:
        """Send every delivery due at ``now`` (default: the clock); returns how many attempts were made."""
        now = time.time() if now is None else now
        lease_until = now + self.timeout_s + LEASE_MARGIN_S
        claimed = await self._claim(keys=[keys.webhook_due(), keys.webhook_sending()], args=[now, lease_until, self.batch_size])
        task_ids = [_text(i) for i in claimed]
        if not task_ids:
            return 0
        async with pinned_client(self.timeout_s, self.timeout_s, {"User-Agent": USER_AGENT}) as client:
            made = await asyncio.gather(*(self._attempt(client, task_id, now) for task_id in task_ids))
        return sum(made)

    async def delivery(self, task_id: str) -> dict[str, Any]:
        """The delivery record of ``task_id`` (empty when none); the signature and the secret are left out."""
        raw = {_text(k): _text(v) for k, v in (await self.redis.hgetall(keys.webhook_delivery(task_id))).items()}
        return _public(raw) if raw else {}

    def _new_record(self, task: Task, account: Account, url: str, now: float) -> dict[str, str]:
        state, error = PENDING, ""
        try:
            check_url(url, self.policy, resolve=False)
        except InvalidUrl as exc:
            state, error = GAVE_UP, str(exc)
        body = json.dumps(payload_for(task), ensure_ascii=False, separators=(",", ":"))
        return {
            "id": "whd_" + uuid.uuid4().hex,
            "task_id": task.task_id,
            "account_id": account.id,
            "url": url,
            "body": body,
            "signature": sign(url, account.signing_secret),
            "signing_secret": account.signing_secret,  # keys each attempt's webhook-signature
            "state": state,
            "attempts": "0",
            "max_attempts": str(self.max_attempts),
            "last_status": "",
            "last_error": error,
            "next_at": str(now) if state == PENDING else "",
            "created_at": str(now),
            "updated_at": str(now),
            "delivered_at": "",
        }

    async def _attempt(self, client: httpx.AsyncClient, task_id: str, now: float) -> int:
        raw = {_text(k): _text(v) for k, v in (await self.redis.hgetall(keys.webhook_delivery(task_id))).items()}
        if raw.get("state") != PENDING:  # record expired or already final: drop the lease
            await self.redis.zrem(keys.webhook_sending(), task_id)
            return 0
        attempt = int(raw["attempts"]) + 1
        outcome = await self._post(client, raw, attempt)
        if not outcome.ok:
            log.warning("callback %s for task %s, attempt %d: %s", raw["id"], task_id, attempt, outcome.error)
        state = await self._record(task_id, attempt, int(raw["max_attempts"]), outcome, now)
        label = {DELIVERED: "delivered", GAVE_UP: "gave_up"}.get(state, "retrying")
        metrics.webhook_delivery(label, now - float(raw["created_at"]) if state == DELIVERED else None)
        return 1

    async def _post(self, client: httpx.AsyncClient, raw: dict[str, str], attempt: int) -> Outcome:
        body = raw["body"].encode()
        secret = raw["signing_secret"] if "signing_secret" in raw else await self._secret_of(raw["account_id"])
        headers = {
            "Content-Type": "application/json",
            "X-Signature": raw["signature"],
            "X-Webhook-Id": raw["id"],
            "X-Webhook-Attempt": str(attempt),
        }
        try:
            async with asyncio.timeout(self.timeout_s):
                target = await asyncio.to_thread(check_url, raw["url"], self.policy)
                if secret is not None:  # signed over exactly the bytes sent, at the time of sending
                    headers.update(standard_headers(raw["id"], int(time.time()), body, secret))
                response = await send_pinned(client, "POST", target, headers=headers, content=body)
                await response.aclose()  # the receiver's body is never read
        except InvalidUrl as exc:
            return Outcome(False, None, str(exc))
        except TimeoutError:
            return Outcome(False, None, f"no answer within {self.timeout_s:g} s")
        except httpx.HTTPError as exc:
            return Outcome(False, None, f"{type(exc).__name__}: {exc}")
        ok = response.is_success
        return Outcome(ok, response.status_code, "" if ok else f"HTTP {response.status_code}")

    async def _secret_of(self, account_id: str) -> str | None:
        """The account's secret, for a delivery scheduled before records kept theirs (None: the account is gone)."""
        account = await AccountStore(self.redis).get(account_id)
        return account.signing_secret if account else None

    async def _record(self, task_id: str, attempt: int, max_attempts: int, outcome: Outcome, now: float) -> str:
        if outcome.ok:
            state, next_at = DELIVERED, ""
        elif attempt >= max_attempts:
            state, next_at = GAVE_UP, ""
        else:
            state, next_at = PENDING, str(now + backoff_delay(attempt, self.base_delay_s, self.max_delay_s, self.rng))
        fields = {
            "state": state,
            "attempts": str(attempt),
            "last_status": "" if outcome.status is None else str(outcome.status),
            "last_error": outcome.error,
            "next_at": next_at,
            "updated_at": str(now),
            "delivered_at": str(now) if outcome.ok else "",
        }
        await self._finish(
            keys=[keys.webhook_sending(), keys.webhook_due(), keys.webhook_delivery(task_id)],
            args=[task_id, keys.WEBHOOK_DELIVERY_TTL_S, next_at, *_flatten(fields)],
        )
        return state


def _public(raw: dict[str, str]) -> dict[str, Any]:
    def number(name: str) -> float | None:
        return float(raw[name]) if raw.get(name) else None

    return {
        "id": raw["id"],
        "task_id": raw["task_id"],
        "url": raw["url"],
        "state": raw["state"],
        "attempts": int(raw["attempts"]),
        "max_attempts": int(raw["max_attempts"]),
        "last_status": int(raw["last_status"]) if raw.get("last_status") else None,
        "last_error": raw.get("last_error") or None,
        "next_at": number("next_at"),
        "created_at": number("created_at"),
        "updated_at": number("updated_at"),
        "delivered_at": number("delivered_at"),
        "payload": json.loads(raw["body"]),
    }


def _flatten(fields: dict[str, str]) -> list[str]:
    return [item for pair in fields.items() for item in pair]


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
