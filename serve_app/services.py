"""Per-replica service objects shared by the routes (built once, lazily)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from redis.asyncio import Redis

from deployments.capabilities import Capabilities
from deployments.engines.net.urls import UrlPolicy
from serve_app import storage
from serve_app.accounts import AccountStore
from serve_app.catalog import Catalog
from serve_app.files import FileStore
from serve_app.glossaries import GlossaryStore
from serve_app.idempotency import IdempotencyStore
from serve_app.limits import QuotaLedger, RateLimiter
from serve_app.settings import AppArgs
from serve_app.tasks import JobQueue, SpeedStats, TaskStore

log = logging.getLogger("mediatrans.services")

#: An async callable returning one deployment's report (a handle call in Serve).
CapabilityProbe = Callable[[], Awaitable[Capabilities]]


class CapabilityCache:
    """Merged engine reports, refreshed at most every ``ttl_s`` seconds.

    A deployment that does not answer contributes nothing, so the language
    list shrinks rather than promising what cannot be served.
    """

    def __init__(self, probes: Mapping[str, CapabilityProbe], ttl_s: float, timeout_s: float = 10.0) -> None:
        self.probes = dict(probes)
        self.ttl_s = ttl_s
        self.timeout_s = timeout_s
        self._value: Capabilities | None = None
        self._fetched_at = 0.0
        self._lock = asyncio.Lock()

    async def get(self) -> Capabilities:
        if self._value is not None and time.monotonic() - self._fetched_at < self.ttl_s:
            return self._value
        async with self._lock:
            if self._value is None or time.monotonic() - self._fetched_at >= self.ttl_s:
                self._value = await self._collect()
                self._fetched_at = time.monotonic()
        return self._value

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
    quotas: QuotaLedger
    idempotency: IdempotencyStore
    tasks: TaskStore
    jobs: JobQueue
    catalog: Catalog
    capabilities: CapabilityCache
    handles: Mapping[str, Any]
    files: FileStore
    glossaries: GlossaryStore
    url_policy: UrlPolicy
    speed: SpeedStats

    @classmethod
    def create(cls, args: AppArgs, handles: Mapping[str, Any], probes: Mapping[str, CapabilityProbe]) -> Services:
        redis = Redis.from_url(args.redis_url, decode_responses=True, health_check_interval=30)
        return cls(
            args=args,
            redis=redis,
            accounts=AccountStore(redis),
            limiter=RateLimiter(redis),
            quotas=QuotaLedger(redis),
            idempotency=IdempotencyStore(redis),
            tasks=TaskStore(redis),
            jobs=JobQueue(redis),
            catalog=Catalog.load(),
            capabilities=CapabilityCache(probes, args.capabilities_refresh_s),
            handles=handles,
            files=storage.file_store(args),
            glossaries=GlossaryStore(redis),
            url_policy=storage.url_policy(args),
            speed=SpeedStats(redis),
        )
