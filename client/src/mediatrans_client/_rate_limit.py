"""The account's rate-limit state, as the ``X-RateLimit-*`` headers of every authenticated response give it."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RateLimit:
    """What the service said about the account's request rate in one response.

    Attributes:
        limit: sustained requests per minute (``X-RateLimit-Limit``).
        remaining: requests that may be sent right now without waiting (``X-RateLimit-Remaining``).
        reset: seconds, from when the response arrived, until ``remaining`` is back at its most (``X-RateLimit-Reset``).
        observed_at: when the response arrived (``time.time()``).
    """

    limit: int
    remaining: int
    reset: float
    observed_at: float

    @property
    def reset_at(self) -> float:
        """The ``time.time()`` at which the whole burst is available again."""
        return self.observed_at + self.reset

    @classmethod
    def from_headers(cls, headers: Mapping[str, str], now: float | None = None) -> RateLimit | None:
        """The state in ``headers``; None when the response had none (unauthenticated) or they are unreadable."""
        try:
            limit = int(headers["x-ratelimit-limit"])
            remaining = int(headers["x-ratelimit-remaining"])
            reset = float(headers["x-ratelimit-reset"])
        except (KeyError, ValueError):
            return None
        return cls(limit, remaining, max(0.0, reset), time.time() if now is None else now)
