"""Per-replica service objects shared by the routes (built once, lazily)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from redis.asyncio import Redis

from core.accounts import AccountStore
from core.errors import ApiError, ErrorKind
from core.files import FileStore
from core.files.factory import file_store
from core.glossaries import GlossaryStore
from core.memories import MemoryStore
from core.quotas import QuotaLedger
from core.redis import connect
from core.settings import AppArgs
from core.tasks import SpeedStats, TaskStore
from core.voices import VoiceStore
from engines.capabilities import Capabilities
from engines.net.urls import UrlPolicy
from serve_app.catalog import Catalog
from serve_app.idempotency import IdempotencyStore
from serve_app.limits import AnonymousLimiter, RateLimiter
from serve_app.stream_slots import StreamSlots

log = logging.getLogger("mediatrans.services")

#: An async callable returning one deployment's report (a handle call in Serve).
CapabilityProbe = Callable[[], Awaitable[Capabilities]]

#: Optional deployments (handle name) → what an answer calls the capability when it is not deployed.
OPTIONAL_CAPABILITIES = {
    "grammar": "Grammar checking",
    "localizer": "Localization",
    "tts": "Speech synthesis",
    "voice_cloner": "Voice cloning",
    "diarizer": "Speaker diarization",
}


class TimedCache:
    """One value shared by every caller for ``ttl_s`` seconds (one load runs at a time); e.g. /readyz's answer.

    With ``stale_while_refreshing``, only the first load is waited for: once a value exists, a read after
    ``ttl_s`` gets it at once and starts one refresh in the background (a refresh that fails keeps the old
    value). Engine reports are read on every request's path, and a deployment slow to answer its report
    (a busy replica) must not hold up the requests that need only the last one.
    """

    def __init__(self, ttl_s: float, *, stale_while_refreshing: bool = False) -> None:
        self.ttl_s = ttl_s
        self.stale_while_refreshing = stale_while_refreshing
        self._value: Any = None
        self._at = -float("inf")
        self._lock = asyncio.Lock()
        self._refresh: asyncio.Task[None] | None = None

    async def get(self, check: Callable[[], Awaitable[Any]]) -> Any:
        if time.monotonic() - self._at < self.ttl_s:
            return self._value
        if self.stale_while_refreshing and self._at > -float("inf"):
            if self._refresh is None or self._refresh.done():
                self._refresh = asyncio.ensure_future(self._load(check, keep_on_error=True))
            return self._value
        await self._load(check, keep_on_error=False)
        return self._value

    async def _load(self, check: Callable[[], Awaitable[Any]], *, keep_on_error: bool) -> None:
        async with self._lock:
            if time.monotonic() - self._at < self.ttl_s:
                return
            try:
                self._value = await check()
            except Exception:
                if not keep_on_error:
                    raise
                log.warning("refresh failed; the last value is kept", exc_info=True)
                return
            self._at = time.monotonic()


class CapabilityCache:
    """Merged engine reports, refreshed at most every ``ttl_s`` seconds.

    A deployment that does not answer contributes nothing, so the language
    list shrinks rather than promising what cannot be served.
    """

    def __init__(self, probes: Mapping[str, CapabilityProbe], ttl_s: float, timeout_s: float = 10.0) -> None:
        self.probes = dict(probes)
        self.timeout_s = timeout_s
        self._cache = TimedCache(ttl_s, stale_while_refreshing=True)

    async def get(self) -> Capabilities:
        capabilities: Capabilities = await self._cache.get(self._collect)
        return capabilities

    async def _collect(self) -> Capabilities:
        merged = Capabilities()
        results = await asyncio.gather(
            *(asyncio.wait_for(probe(), self.timeout_s) for probe in self.probes.values()), return_exceptions=True
        )
        for name, result in zip(self.probes, results):
            if isinstance(result, BaseException):
                log.warning("capability report of %s unavailable: %s", name, result)
                continue
            merged = merged.merge(result)
        return merged


@dataclasses.dataclass
class Services:
    args: AppArgs
    redis: Redis
    accounts: AccountStore
    limiter: RateLimiter
    anonymous: AnonymousLimiter
    quotas: QuotaLedger
    idempotency: IdempotencyStore
    tasks: TaskStore
    catalog: Catalog
    capabilities: CapabilityCache
    handles: Mapping[str, Any]
    files: FileStore
    glossaries: GlossaryStore
    memories: MemoryStore
    url_policy: UrlPolicy
    speed: SpeedStats
    readiness: TimedCache
    grammar_catalogue: TimedCache
    voices: VoiceStore
    tts_voices: TimedCache
    tts_languages: TimedCache
    tts_streams: StreamSlots

    def handle(self, name: str, *, field: str | None = None) -> Any:
        """The handle of deployment ``name``; one this service does not deploy is the one answer for it.

        503 ``UNAVAILABLE`` for an endpoint that is that capability; 400 ``INVALID_PARAMETER`` naming the
        request ``field`` that asked for it (``enable_dubbing``, ``enable_diarization``).
        """
        handle = self.handles.get(name)
        if handle is not None:
            return handle
        what = OPTIONAL_CAPABILITIES.get(name, name)
        if field is not None:
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"{field}: {what.lower()} is not deployed on this service.")
        raise ApiError(ErrorKind.UNAVAILABLE, f"{what} is not deployed on this service.")

    @classmethod
    def create(cls, args: AppArgs, handles: Mapping[str, Any], probes: Mapping[str, CapabilityProbe]) -> Services:
        redis = connect(args.redis_url)
        return cls(
            args=args,
            redis=redis,
            accounts=AccountStore(redis),
            limiter=RateLimiter(redis),
            anonymous=AnonymousLimiter(redis, args.anonymous_limits.rate_per_minute, args.anonymous_limits.burst),
            quotas=QuotaLedger(redis),
            idempotency=IdempotencyStore(redis),
            tasks=TaskStore(redis),
            catalog=Catalog.load(),
            capabilities=CapabilityCache(probes, args.capabilities_refresh_s),
            handles=handles,
            files=file_store(args),
            glossaries=GlossaryStore(redis),
            memories=MemoryStore(redis),
            url_policy=args.url_policy.policy(),
            speed=SpeedStats(redis),
            readiness=TimedCache(args.readiness_cache_s),
            grammar_catalogue=TimedCache(args.capabilities_refresh_s, stale_while_refreshing=True),
            voices=VoiceStore(redis),
            tts_voices=TimedCache(args.capabilities_refresh_s, stale_while_refreshing=True),
            tts_languages=TimedCache(args.capabilities_refresh_s, stale_while_refreshing=True),
            tts_streams=StreamSlots(redis),
        )
