"""The blocking client."""

from __future__ import annotations

from pathlib import Path

import httpx

from mediatrans_client import _endpoints as ep
from mediatrans_client._language_cache import LANGUAGE_CACHE_TTL_S, LanguageCache
from mediatrans_client._memory_resources import Memories
from mediatrans_client._rate_limit import RateLimit
from mediatrans_client._requests import DEFAULT_TIMEOUT_S, ClientSettings, drop_none
from mediatrans_client._sync_resources import Game, Grammar, Speech, Subtitles, Video, Voices
from mediatrans_client._transport import SyncTransport
from mediatrans_client.models import AccountInfo, LanguageList


class Client:
    """Blocking client of the API; one keep-alive connection pool, closed by :meth:`close` or ``with``.

    Args:
        base_url: e.g. ``https://api.example.com``; default ``$MEDIATRANS_BASE_URL``.
        token: the bearer token; default ``$MEDIATRANS_TOKEN``.
        timeout: seconds per HTTP attempt (30).
        max_attempts: attempts per request, retries included (5).
        retry_after_cap: the most a server's ``Retry-After`` is waited (60 s).
        language_cache_ttl: seconds a language list is used without asking (24 h).
        language_cache_path: a JSON file that keeps language lists between processes (default: memory only).
        http_client: an own :class:`httpx.Client` (its ``base_url`` must be set); not closed by us.
    """

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        max_attempts: int = 5,
        retry_after_cap: float = 60.0,
        language_cache_ttl: float = LANGUAGE_CACHE_TTL_S,
        language_cache_path: str | Path | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.settings = ClientSettings.resolve(base_url, token, timeout, max_attempts, retry_after_cap)
        self._transport = SyncTransport(self.settings, http_client)
        self._language_cache = LanguageCache(language_cache_ttl, path=language_cache_path, scope=self.settings.base_url)
        self.video = Video(self._transport)
        self.subtitles = Subtitles(self._transport, self.video)
        self.voice = Voices(self._transport)
        self.tts = Speech(self._transport)
        self.grammar = Grammar(self._transport)
        self.game = Game(self._transport)
        self.memories = Memories(self._transport)

    def languages(
        self,
        source: str | None = None,
        *,
        target: str | None = None,
        type: str | None = None,
        capability: str | None = None,
        refresh: bool = False,
    ) -> LanguageList:
        """Supported languages; cached 24 h, then revalidated with the ``ETag`` (``refresh`` revalidates now)."""
        params = drop_none({"source": source, "target": target, "type": type, "capability": capability})
        key = self._language_cache.key(params)
        cached = None if refresh else self._language_cache.fresh(key)
        if cached is not None:
            return cached
        spec = ep.languages_spec(params, self._language_cache.revalidation_headers(key))
        return self._language_cache.absorb(key, self._transport.request(spec))

    def account(self) -> AccountInfo:
        """The token's account: limits, quotas and this month's usage."""
        return AccountInfo.model_validate(self._transport.request(ep.account_spec()).json())

    @property
    def last_rate_limit(self) -> RateLimit | None:
        """The account's rate-limit state from the latest response that carried one (``None`` before any)."""
        return self._transport.last_rate_limit

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
