"""Closed-loop HTTP load generator (own process: never import Ray here).

Prints one JSON line: requests, errors, req/s, p50 and p99 latency in ms.

    python loadtests/loadgen.py --url http://127.0.0.1:8000/v1/languages --concurrency 16 --duration 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

import httpx


async def worker(
    client: httpx.AsyncClient, args: argparse.Namespace, deadline: float, latencies: list[float], errors: list[int]
) -> None:
    body = json.loads(args.body) if args.body else None
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        try:
            response = await client.request(args.method, args.url, json=body)
            ok = response.status_code == args.expect
        except httpx.HTTPError:
            ok = False
        latencies.append(time.perf_counter() - started)
        if not ok:
            errors.append(1)


async def run(args: argparse.Namespace) -> dict[str, float]:
    headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    latencies: list[float] = []
    errors: list[int] = []
    async with httpx.AsyncClient(headers=headers, limits=limits, timeout=30) as client:
        warm_deadline = time.perf_counter() + args.warmup
        await asyncio.gather(*(worker(client, args, warm_deadline, [], []) for _ in range(args.concurrency)))
        started = time.perf_counter()
        deadline = started + args.duration
        await asyncio.gather(*(worker(client, args, deadline, latencies, errors) for _ in range(args.concurrency)))
        elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "requests": len(latencies),
        "errors": len(errors),
        "rps": len(latencies) / elapsed,
        "p50_ms": statistics.median(ordered) * 1000 if ordered else 0.0,
        "p99_ms": ordered[int(0.99 * (len(ordered) - 1))] * 1000 if ordered else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--method", default="GET")
    parser.add_argument("--body", default=None, help="JSON body")
    parser.add_argument("--token", default=None)
    parser.add_argument("--expect", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    print(json.dumps(asyncio.run(run(parser.parse_args()))))


if __name__ == "__main__":
    main()
