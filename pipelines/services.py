"""Service objects of a VideoWorker replica (Redis stores, files, webhooks, handles)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from redis.asyncio import Redis

from deployments.engines.net.urls import UrlPolicy
from serve_app import storage
from serve_app.accounts import AccountStore
from serve_app.files import FileStore
from serve_app.settings import AppArgs
from serve_app.tasks import JobQueue, TaskStore
from serve_app.webhooks import WebhookSender


@dataclasses.dataclass
class WorkerServices:
    args: AppArgs
    redis: Redis
    tasks: TaskStore
    jobs: JobQueue
    accounts: AccountStore
    files: FileStore
    webhooks: WebhookSender
    url_policy: UrlPolicy
    handles: Mapping[str, Any]

    @classmethod
    def create(cls, args: AppArgs, handles: Mapping[str, Any]) -> WorkerServices:
        redis = Redis.from_url(args.redis_url, decode_responses=True, health_check_interval=30)
        policy = storage.url_policy(args)
        return cls(
            args=args,
            redis=redis,
            tasks=TaskStore(redis),
            jobs=JobQueue(redis, min_idle_ms=int(args.worker.reclaim_after_s * 1000), max_deliveries=args.worker.max_deliveries),
            accounts=AccountStore(redis),
            files=storage.file_store(args),
            webhooks=WebhookSender(redis, policy, **args.webhooks.model_dump()),
            url_policy=policy,
            handles=handles,
        )
