"""Counters of the LLM translator: how often the model misbehaves and the backend struggles."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, fields


@dataclass
class LLMStats:
    """Counters that show how often the model misbehaves and the backend struggles.

    ``calls`` counts answered chat completions (re-asks and split halves
    included); ``batches`` counts the batches a request was cut into.
    """

    requests: int = 0
    segments: int = 0
    batches: int = 0
    calls: int = 0
    reasks: int = 0
    splits: int = 0
    failures: int = 0
    retries: int = 0
    timeouts: int = 0
    unavailable: int = 0
    rejected_language: int = 0
    rejected_echo: int = 0
    rejected_markup: int = 0
    rejected_length: int = 0
    rejected_empty: int = 0
    reviews: int = 0
    reviews_changed: int = 0
    reviews_discarded: int = 0
    condensed: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, name: str, amount: int = 1) -> None:
        """Thread-safe increment: batches run concurrently."""
        with self._lock:
            setattr(self, name, getattr(self, name) + amount)

    def snapshot(self) -> dict[str, int]:
        """A consistent copy for ``describe()`` and metrics exporters."""
        with self._lock:
            return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "_lock"}
