"""When to retry a request and how long to wait before the next attempt."""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass, field

import httpx

RETRY_STATUSES = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter, overridden by the server's ``Retry-After``.

    Attributes:
        max_attempts: attempts in all, the first included (1 disables retries).
        backoff_base: seconds; attempt ``n`` waits up to ``backoff_base * 2 ** (n - 1)``.
        backoff_cap: the most one computed backoff may wait.
        retry_after_cap: the most a server-given ``Retry-After`` is honoured for.
        statuses: HTTP statuses that are retried.
    """

    max_attempts: int = 5
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    retry_after_cap: float = 60.0
    statuses: frozenset[int] = field(default=RETRY_STATUSES)

    def should_retry_status(self, response: httpx.Response, sent_idempotency_key: bool) -> bool:
        """Whether an answered attempt is worth repeating.

        A ``409`` with ``Retry-After`` on a keyed request means the first attempt of the
        same key is still running on the server (docs/platform.md): waiting and
        retrying then returns its stored answer.
        """
        if response.status_code in self.statuses:
            return True
        return response.status_code == 409 and sent_idempotency_key and "retry-after" in response.headers

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait after failed ``attempt`` (1-based)."""
        if retry_after is not None:
            return max(0.0, min(retry_after, self.retry_after_cap))
        ceiling = min(self.backoff_cap, self.backoff_base * 2 ** min(attempt - 1, 30))
        return rng.uniform(0.0, ceiling)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header: delta-seconds or an HTTP date; ``None`` if absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
