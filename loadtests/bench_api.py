"""Benchmark: our /v1 app against a bare Ray Serve hello-world in the same run.

Starts a real redis-server, Ray and both Serve applications on this machine,
then drives each endpoint with loadtests/loadgen.py in a separate process,
alternating targets for several rounds. Prints req/s, p50, p99 (medians over
rounds) and the throughput ratio against the bare deployment.

    .venv/bin/python loadtests/bench_api.py --rounds 3 --duration 10 --concurrency 16
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.local_profile import start_ray  # noqa: E402
from tests.support.services import free_port, redis_server, wait_http_ok  # noqa: E402


def start_apps(redis_url: str, port: int) -> None:
    from ray import serve
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse

    from serve_app.app import build_app

    @serve.deployment(name="Bare", ray_actor_options={"num_cpus": 0.2}, max_ongoing_requests=256)
    class Bare:
        async def __call__(self, request: Request) -> PlainTextResponse:
            return PlainTextResponse("hello")

    os.environ["PYTHONPATH"] = f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    start_ray()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    serve.run(Bare.bind(), name="bare", route_prefix="/bare")
    # One load generator is one client address: lift the anonymous per-client limit so the endpoint is measured.
    args = {"redis_url": redis_url, "translator": {"engine": "apertium"}}
    args["anonymous_limits"] = {"rate_per_minute": 100_000_000, "burst": 10_000_000}
    serve.run(build_app(args), name="mediatrans", route_prefix="/")


def make_token(redis_url: str) -> str:
    from redis.asyncio import Redis

    from core.accounts import AccountStore

    async def make() -> str:
        redis = Redis.from_url(redis_url, decode_responses=True)
        store = AccountStore(redis)
        account = await store.create("bench", rate_per_minute=10_000_000, burst=100_000)
        token = (await store.issue_token(account)).token
        await redis.aclose()
        return token

    return asyncio.run(make())


def make_task(redis_url: str, token: str) -> str:
    """A queued task of the bench account, for the polling endpoint."""
    from redis.asyncio import Redis

    from core import keys
    from core.accounts import hash_token
    from core.tasks import TaskStore

    async def make() -> str:
        redis = Redis.from_url(redis_url, decode_responses=True)
        account_id = await redis.get(keys.token(hash_token(token)))
        task = await TaskStore(redis).create(account_id, {"target_lang": "es"}, estimated_seconds=60)
        await redis.aclose()
        return task.task_id

    return asyncio.run(make())


def load(
    url: str, args: argparse.Namespace, token: str | None = None, *, method: str = "GET", body: str | None = None
) -> dict[str, float]:
    """One loadgen.py run in its own process; its JSON summary."""
    cmd = [sys.executable, str(ROOT / "loadtests" / "loadgen.py"), "--url", url, "--method", method]
    cmd += ["--concurrency", str(args.concurrency), "--duration", str(args.duration)]
    if token:
        cmd += ["--token", token]
    if body:
        cmd += ["--body", body]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@contextlib.contextmanager
def running_service() -> Iterator[tuple[str, str, str]]:
    """Redis, Ray and both Serve apps on free ports; yields (base URL, Redis URL, bench token)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as redis:
        redis_url = redis.url
        start_apps(redis_url, port)
        wait_http_ok(f"{base}/readyz", 180)
        yield base, redis_url, make_token(redis_url)


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    with running_service() as (base, redis_url, token):
        task_id = make_task(redis_url, token)
        targets = {
            "bare Serve hello-world": (f"{base}/bare", None),
            "GET /v1/languages": (f"{base}/v1/languages", None),
            "GET /v1/account (authenticated)": (f"{base}/v1/account", token),
            "GET /v1/video/task/{id} (polling)": (f"{base}/v1/video/task/{task_id}", token),
        }
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in targets}
        for _ in range(args.rounds):
            for name, (url, tok) in targets.items():
                runs[name].append(load(url, args, tok))
        results = {name: median_of(r) for name, r in runs.items()}
    bare = results["bare Serve hello-world"]["rps"]
    print(f"\n{args.rounds} rounds x {args.duration:.0f} s, concurrency {args.concurrency}, medians:")
    print(f"{'target':40} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} {'ratio':>6}")
    for name, r in results.items():
        print(f"{name:40} {r['rps']:8.1f} {r['p50_ms']:8.1f} {r['p99_ms']:8.1f} {r['errors']:7.0f} {r['rps'] / bare:6.2f}")


if __name__ == "__main__":
    main()
