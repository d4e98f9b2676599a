"""The language list cache: fresh for 24 hours, then revalidated with ``If-None-Match``."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from mediatrans_client.models import LanguageList

LANGUAGE_CACHE_TTL_S = 24 * 3600.0

CacheKey = tuple[tuple[str, str], ...]


@dataclass
class _Entry:
    languages: LanguageList
    etag: str | None
    stored_at: float


class LanguageCache:
    """Answers of ``GET /v1/languages`` per query, with their ``ETag``."""

    def __init__(self, ttl_s: float = LANGUAGE_CACHE_TTL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._entries: dict[CacheKey, _Entry] = {}

    @staticmethod
    def key(params: Mapping[str, Any]) -> CacheKey:
        return tuple(sorted((name, str(value)) for name, value in params.items()))

    def fresh(self, key: CacheKey) -> LanguageList | None:
        """The cached list when younger than the TTL, else ``None`` (revalidate or fetch)."""
        entry = self._entries.get(key)
        if entry is None or self._clock() - entry.stored_at >= self.ttl_s:
            return None
        return entry.languages

    def revalidation_headers(self, key: CacheKey) -> dict[str, str]:
        entry = self._entries.get(key)
        return {"If-None-Match": entry.etag} if entry is not None and entry.etag else {}

    def absorb(self, key: CacheKey, response: httpx.Response) -> LanguageList:
        """Store a ``200`` answer, or renew the cached one on ``304``; return the list to use."""
        entry = self._entries.get(key)
        if response.status_code == 304 and entry is not None:
            entry.stored_at = self._clock()
            entry.etag = response.headers.get("etag") or entry.etag
            return entry.languages
        languages = LanguageList.model_validate(response.json())
        self._entries[key] = _Entry(languages, response.headers.get("etag"), self._clock())
        return languages

    def clear(self) -> None:
        self._entries.clear()
