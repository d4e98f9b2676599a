"""A real Ray Serve application (configs/local.yaml's engines) on a free port, over real Redis."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from core.accounts import Account, AccountStore
from tests.support.leaks import assert_no_internals
from tests.support.services import free_port, wait_http_ok

ROOT = Path(__file__).resolve().parents[2]

MODELS = ROOT / "models"
#: Serve's proxy callback, as cluster/local/ray-env.sh sets it.
PROXY_GUARD = "serve_app.proxy_guard:middlewares"

LOCAL_ARGS: dict[str, Any] = yaml.safe_load((ROOT / "configs" / "local.yaml").read_text())["applications"][0]["args"]

APP_ARGS: dict[str, Any] = {
    "max_inflight_requests": 64,
    "translator": {"engine": "apertium"},
    "asr": {
        "engine": "faster-whisper",
        "options": {"model_dir": str(MODELS / "whisper-base"), "cpu_threads": 2, "batch_size": 8},
        "target_chunk_s": 4,
        "max_chunk_s": 6,  # test clips are 5-25 s: most of them go through the Ray Data chunk path
        "chunk_concurrency": 1,
    },
    # The CPU profile's grammar engines (configs/local.yaml), plus Quire so every English engine is exercised.
    "grammar": {"engines": [*LOCAL_ARGS["grammar"]["engines"], {"engine": "quire"}]},
    "tts": LOCAL_ARGS["tts"],
    # The CPU profile's cloner with a short search, so the suite stays fast (quality: tests/integration/voice/test_cloning.py).
    "voice_cloner": {"engine": "kokoro-fit", "options": {"evaluations": 1, "enhanced_evaluations": 2}},
    "diarizer": LOCAL_ARGS["diarizer"],
    "worker": {"reclaim_after_s": 5, "heartbeat_s": 1, "claim_error_limit": 30},
    # Short retries, so a receiver that was down for minutes gets its callback within seconds of coming back.
    "webhooks": {"timeout_s": 5, "base_delay_s": 2, "max_delay_s": 8, "max_attempts": 60},
    # Test servers listen on loopback under the name "localhost": only that name is trusted,
    # so 127.0.0.1 and private addresses are still refused as in production.
    "url_policy": {"allowed_hosts": ["localhost"]},
    "body_limits": {"video_upload_bytes": 8 << 20},
    # Per-client limit of the unauthenticated endpoints (defaults); each test is its own client (X-Forwarded-For).
    "anonymous_limits": {"trust_forwarded_for": True},
}


@pytest.fixture(scope="session")
def serve_base_url(serve_redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import ray
    from ray import serve

    from serve_app.app import build_app

    os.environ["PYTHONPATH"] = f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    os.environ.setdefault("RAY_worker_niceness", "0")  # as cluster/local/ray-env.sh: model replicas at normal priority
    # The suite creates hundreds of accounts; each keeps its own metric series here (the bound has unit tests).
    os.environ.setdefault("MEDIATRANS_METRICS_MAX_ACCOUNTS", "100000")
    # The ingress `make run` uses (cluster/local/ray-env.sh): Serve's Python proxy, or its HAProxy ingress
    # with MEDIATRANS_SERVE_INGRESS=haproxy (docs/scaling.md). Read when Ray starts, so set before ray.init.
    haproxy = os.environ.get("MEDIATRANS_SERVE_INGRESS", "proxy") == "haproxy"
    os.environ["RAY_SERVE_ENABLE_HA_PROXY"] = "1" if haproxy else "0"
    os.environ["RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH"] = PROXY_GUARD  # as ray-env.sh: slow clients, request ids
    port = free_port()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        work = tmp_path_factory.mktemp("serve")
        args = {
            **APP_ARGS,
            "redis_url": serve_redis_url,
            "public_base_url": f"http://127.0.0.1:{port}",
            "worker": {**APP_ARGS["worker"], "work_dir": str(work / "work")},
            "storage": {"root_dir": str(work / "files")},
        }
        serve.run(build_app(args), name="mediatrans", route_prefix="/")
        base = f"http://127.0.0.1:{port}"
        wait_http_ok(f"{base}/readyz", timeout_s=180)
        yield base
    finally:
        serve.shutdown()
        ray.shutdown()


@pytest.fixture
def client(serve_base_url: str) -> Iterator[httpx.Client]:
    """An HTTP client that is a client address of its own (the anonymous rate limit is per address).

    Every JSON response it reads is checked for server internals (tests.support.leaks).
    """
    address = f"198.18.{secrets.randbelow(256)}.{secrets.randbelow(256)}"
    hooks = {"response": [assert_no_internals]}
    with httpx.Client(base_url=serve_base_url, timeout=60, headers={"X-Forwarded-For": address}, event_hooks=hooks) as c:
        yield c


class Accounts:
    """Creates accounts and tokens directly in the service's Redis."""

    def __init__(self, redis_url: str) -> None:
        self.redis_url = redis_url

    def _run(self, coro_fn: Any) -> Any:
        async def runner() -> Any:
            from redis.asyncio import Redis

            redis = Redis.from_url(self.redis_url, decode_responses=True)
            try:
                return await coro_fn(AccountStore(redis))
            finally:
                await redis.aclose()

        return asyncio.run(runner())

    def create(self, **limits: Any) -> tuple[Account, str]:
        """A new account and a bearer token for it."""
        import uuid

        async def make(store: AccountStore) -> tuple[Account, str]:
            account = await store.create("test-" + uuid.uuid4().hex[:10], **limits)
            issued = await store.issue_token(account)
            return account, issued.token

        result: tuple[Account, str] = self._run(make)
        return result

    def issue(self, account: Account, ttl_s: int | None = None) -> str:
        async def issue(store: AccountStore) -> str:
            return (await store.issue_token(account, ttl_s=ttl_s)).token

        token: str = self._run(issue)
        return token

    def revoke_all(self, account: Account) -> None:
        self._run(lambda store: store.revoke_all(account))


@pytest.fixture
def accounts(serve_redis_url: str) -> Accounts:
    return Accounts(serve_redis_url)


@pytest.fixture
def auth(accounts: Accounts) -> dict[str, str]:
    """Authorization header of a fresh account."""
    _account, token = accounts.create()
    return {"Authorization": f"Bearer {token}"}
