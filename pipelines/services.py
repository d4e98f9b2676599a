"""Service objects of a job-runner replica (Redis stores, files, webhooks, quotas, handles)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

from core.memories import MemoryStore
from redis.asyncio import Redis

from core.accounts import AccountStore
from core.files import FileStore
from core.files.factory import file_store
from core.quotas import QuotaLedger
from core.redis import connect
from core.settings import AppArgs
from core.tasks import JobQueue, SpeedStats, TaskStore
from core.webhooks import WebhookSender
from engines.net.urls import UrlPolicy


@dataclasses.dataclass
class WorkerServices:
    args: AppArgs
    redis: Redis
    tasks: TaskStore
    jobs: JobQueue
    accounts: AccountStore
    quotas: QuotaLedger
    speed: SpeedStats
    files: FileStore
    webhooks: WebhookSender
    url_policy: UrlPolicy
    handles: Mapping[str, Any]

    @functools.cached_property
    def memories(self) -> MemoryStore:
        """Translation memories (read by steered translation)."""
        return MemoryStore(self.redis)

    @classmethod
    def create(cls, args: AppArgs, handles: Mapping[str, Any], redis: Redis | None = None) -> WorkerServices:
        redis = redis or connect(args.redis_url)
        policy = args.url_policy.policy()
        return cls(
            args=args,
            redis=redis,
            tasks=TaskStore(redis),
            jobs=JobQueue(redis, min_idle_ms=int(args.worker.reclaim_after_s * 1000), max_deliveries=args.worker.max_deliveries),
            accounts=AccountStore(redis),
            quotas=QuotaLedger(redis),
            speed=SpeedStats(redis),
            files=file_store(args),
            webhooks=WebhookSender(redis, policy, **args.webhooks.model_dump()),
            url_policy=policy,
            handles=handles,
        )
