"""Label values from an open set (account ids, language pairs) kept to a bounded set of series."""

from __future__ import annotations

import threading

OTHER = "_other"


class BoundedLabel:
    """Admits the first ``limit`` distinct values seen by this process; later ones read ``_other``.

    Prometheus keeps one series per label combination, so a label fed by
    client-chosen values (an account id, a language pair) must not grow
    without bound. The first values seen keep their own series; the rest
    are summed under ``_other``, which a dashboard shows as one line.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, value: str) -> str:
        if value in self._seen:
            return value
        with self._lock:
            if len(self._seen) < self.limit:
                self._seen.add(value)
                return value
        return OTHER
