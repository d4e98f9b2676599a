"""The asyncio client."""

from __future__ import annotations

from pathlib import Path

import httpx

from mediatrans_client import _endpoints as ep
from mediatrans_client._async_resources import AsyncGame, AsyncGrammar, AsyncSpeech, AsyncSubtitles, AsyncVideo, AsyncVoices
from mediatrans_client._language_cache import LANGUAGE_CACHE_TTL_S, LanguageCache
from mediatrans_client._memory_resources import AsyncMemories
from mediatrans_client._rate_limit import RateLimit
from mediatrans_client._requests import DEFAULT_TIMEOUT_S, ClientSettings, drop_none
from mediatrans_client._transport import AsyncTransport
from mediatrans_client.models import AccountInfo, LanguageList


class AsyncClient:
    """Asyncio client of the API; same arguments and behaviour as :class:`~mediatrans_client.Client`."""

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
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.settings = ClientSettings.resolve(base_url, token, timeout, max_attempts, retry_after_cap)
        self._transport = AsyncTransport(self.settings, http_client)
        self._language_cache = LanguageCache(language_cache_ttl, path=language_cache_path, scope=self.settings.base_url)
        self.video = AsyncVideo(self._transport)
        self.subtitles = AsyncSubtitles(self._transport, self.video)
        self.voice = AsyncVoices(self._transport)
        self.tts = AsyncSpeech(self._transport)
        self.grammar = AsyncGrammar(self._transport)
        self.game = AsyncGame(self._transport)
        self.memories = AsyncMemories(self._transport)

    async def languages(
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
        return self._language_cache.absorb(key, await self._transport.request(spec))

    async def account(self) -> AccountInfo:
        """The token's account: limits, quotas and this month's usage."""
        return AccountInfo.model_validate((await self._transport.request(ep.account_spec())).json())

    @property
    def last_rate_limit(self) -> RateLimit | None:
        """The account's rate-limit state from the latest response that carried one (``None`` before any)."""
        return self._transport.last_rate_limit

    async def aclose(self) -> None:
        await self._transport.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
