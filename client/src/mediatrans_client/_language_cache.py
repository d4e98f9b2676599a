"""The language list cache: fresh for 24 hours, then revalidated with ``If-None-Match``.

In memory by default; with a ``path`` (the command line's ``~/.cache/mediatrans/languages.json``)
the answers survive the process, timed by the wall clock and kept apart per API address.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
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

    def __init__(
        self,
        ttl_s: float = LANGUAGE_CACHE_TTL_S,
        clock: Callable[[], float] | None = None,
        path: str | Path | None = None,
        scope: str = "",
    ) -> None:
        self.ttl_s = ttl_s
        self.path = Path(path) if path is not None else None
        self.scope = scope
        self._clock = clock or (time.time if self.path is not None else time.monotonic)
        self._entries: dict[CacheKey, _Entry] = {}
        self._load()

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
            self._save()
            return entry.languages
        languages = LanguageList.model_validate(response.json())
        self._entries[key] = _Entry(languages, response.headers.get("etag"), self._clock())
        self._save()
        return languages

    def clear(self) -> None:
        self._entries.clear()

    def _file_key(self, key: CacheKey) -> str:
        return self.scope + "?" + "&".join(f"{name}={value}" for name, value in key)

    def _read_file(self) -> dict[str, Any]:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # missing or damaged: start empty, the next answer rewrites it
        return data if isinstance(data, dict) else {}

    def _load(self) -> None:
        prefix = self.scope + "?"
        for file_key, record in self._read_file().items():
            if not file_key.startswith(prefix) or not isinstance(record, dict):
                continue
            with contextlib.suppress(ValueError, TypeError, KeyError):
                key: CacheKey = tuple((str(name), str(value)) for name, value in record["key"])
                languages = LanguageList.model_validate(record["languages"])
                self._entries[key] = _Entry(languages, record.get("etag"), float(record["stored_at"]))

    def _save(self) -> None:
        if self.path is None:
            return
        data = self._read_file()  # other API addresses' answers stay
        for key, entry in self._entries.items():
            data[self._file_key(key)] = {
                "key": [list(pair) for pair in key],
                "languages": entry.languages.model_dump(mode="json", exclude_none=True),
                "etag": entry.etag,
                "stored_at": entry.stored_at,
            }
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs a request
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_name(f"{self.path.name}.{os.getpid()}.part")
            partial.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            partial.replace(self.path)
