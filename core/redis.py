"""One way to connect to Redis, with the retry policy every replica uses.

Commands that fail because the connection broke (Redis restarting, a
failover, a dropped socket) are retried with jittered exponential backoff for
a few seconds before the error reaches the caller; callers decide what a
longer outage means (progress is skipped, terminal task states are retried
until Redis answers, a claim error counts against the worker's health).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from redis.asyncio import Redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

#: What a command raises when Redis cannot be reached (restarting, failing over, network).
UNREACHABLE: tuple[type[Exception], ...] = (RedisConnectionError, RedisTimeoutError)
#: Failures worth waiting out: Redis unreachable, or the socket under it failing.
TRANSIENT: tuple[type[Exception], ...] = (*UNREACHABLE, OSError)

T = TypeVar("T")
log = logging.getLogger("mediatrans.redis")

#: Longest command round trip tolerated; above any XREADGROUP block the service uses.
SOCKET_TIMEOUT_S = 30.0


def connect(url: str, *, retries: int = 6) -> Redis:
    """An async client with decoded responses and bounded reconnect retries (about 5 s in all)."""
    return Redis.from_url(
        url,
        decode_responses=True,
        health_check_interval=30,
        socket_connect_timeout=5,
        socket_timeout=SOCKET_TIMEOUT_S,
        retry=Retry(ExponentialWithJitterBackoff(base=0.1, cap=2.0), retries),
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
    )


async def until_redis_answers(step: Callable[[], Awaitable[T]], what: str, backoff_s: tuple[float, float] = (0.2, 5.0)) -> T:
    """Run ``step`` until it gets past a Redis outage, waiting with doubling delays (``backoff_s``: first, largest).

    For writes that must not be lost (a task's end, its callback): a Redis restart or
    failover delays them, never drops them.
    """
    delay, cap = backoff_s
    while True:
        try:
            return await step()
        except TRANSIENT as exc:
            log.warning("%s: Redis unreachable (%s); retrying in %.1f s", what, exc, delay)
            await asyncio.sleep(delay)
            delay = min(cap, delay * 2)
