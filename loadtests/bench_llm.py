"""Benchmark: the embedded LLM server's throughput and game localization through HTTP.

1. Tokens/s of ``/v1/chat/completions`` (greedy, distinct translation prompts,
   80 tokens each) with 1 and with 4 concurrent requests, on the server alone
   (``python -m deployments.llm_server``); the ratio shows what continuous
   batching buys.
2. Redis + Ray + both Serve applications of configs/local.yaml; ``POST
   /v1/game/localization`` of distinct 60-character UI strings, one request at
   a time, into 5 targets and, as the baseline in the same run, into 1 target.
   Prints p50/p99 of each and the ratio.

    .venv/bin/python loadtests/bench_llm.py --requests 20
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.llm.service_key import bearer_header, configured_key  # noqa: E402
from loadtests.bench_api import make_token  # noqa: E402
from loadtests.llm_process import local_llm_server  # noqa: E402
from loadtests.local_profile import mediatrans_args, run_llm_app, start_ray  # noqa: E402
from tests.support.services import free_port, redis_server, wait_http_ok  # noqa: E402

#: 60-character UI strings (distinct, so no answer comes from a cache).
UI_STRINGS = [
    "Your inventory is full. Sell or drop items to make room now.",
    "Connection lost. Check your network and try to reconnect now",
    "New quest available: talk to the blacksmith in the village.",
    "Are you sure you want to leave? Unsaved progress will be lost",
    "Level up! You gained two skill points to spend on new powers.",
    "The shop is closed at night. Come back tomorrow morning, hero",
    "Press the jump button twice to perform a double jump in air.",
    "You cannot carry more gold. Visit the bank to store your coin",
    "Daily reward ready: open the chest before midnight to claim.",
    "Your team has won the match! Return to the lobby to continue.",
]
TARGETS_5 = ["de", "es", "fr", "it", "zh"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def tokens_per_second(base_url: str, concurrency: int, rounds: int) -> float:
    """Completion tokens / wall time over ``rounds`` waves of ``concurrency`` distinct requests."""

    def one(i: int) -> int:
        text = UI_STRINGS[i % len(UI_STRINGS)]
        body = {
            "messages": [{"role": "user", "content": f"Translate into German, then explain the grammar: {text}"}],
            "temperature": 0,
            "max_tokens": 80,
        }
        headers = bearer_header(configured_key())  # local_llm_server exported the key it gave the server
        answer = httpx.post(f"{base_url}/v1/chat/completions", json=body, headers=headers, timeout=600).json()
        return int(answer["usage"]["completion_tokens"])

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        tokens = sum(pool.map(one, range(rounds * concurrency)))
    return tokens / (time.perf_counter() - started)


def llm_throughput(rounds: int) -> None:
    with local_llm_server() as url:
        tokens_per_second(url, 1, 1)  # warm up
        single = tokens_per_second(url, 1, rounds * 2)
        four = tokens_per_second(url, 4, rounds)
    print("\nLLM server (Qwen2.5-Coder-1.5B Q4_K_M, llama.cpp, 2 threads), completion tokens/s:")
    print(f"  1 request at a time    {single:6.1f}")
    print(f"  4 concurrent requests  {four:6.1f}   ratio {four / single:.2f}x")


def game_latency(requests: int, verbose: bool = False) -> None:
    import ray
    from ray import serve

    from serve_app.app import build_app

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as redis:
        start_ray()
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        run_llm_app()
        serve.run(build_app(mediatrans_args(port, redis_url=redis.url)), name="mediatrans", route_prefix="/")
        wait_http_ok(f"{base}/readyz", 600)
        headers = {"Authorization": f"Bearer {make_token(redis.url)}"}
        results: dict[str, list[float]] = {"5 targets": [], "1 target (baseline)": []}
        engines: dict[str, str] = {}
        with httpx.Client(base_url=base, timeout=300, headers=headers) as client:
            for i in range(requests + 1):
                for name, targets in (("5 targets", TARGETS_5), ("1 target (baseline)", TARGETS_5[:1])):
                    text = UI_STRINGS[i % len(UI_STRINGS)]
                    body = {"text": text, "content_type": "ui", "source_lang": "en", "target_langs": targets}
                    started = time.perf_counter()
                    response = client.post("/v1/game/localization", json=body)
                    elapsed = time.perf_counter() - started
                    response.raise_for_status()
                    engines.update(response.json().get("engines") or {})
                    if i > 0:  # the first round warms the prompt cache
                        results[name].append(elapsed)
                    if verbose:
                        print(f"  {name:22} {elapsed:6.2f} s  {text!r}", flush=True)
        serve.shutdown()
        ray.shutdown()
    print(f"\nPOST /v1/game/localization, 60-character UI strings, one at a time, {requests} requests each:")
    for name, times in results.items():
        print(f"  {name:22} p50 {statistics.median(times):5.2f} s   p99 {percentile(times, 0.99):5.2f} s")
    ratio = statistics.median(results["5 targets"]) / statistics.median(results["1 target (baseline)"])
    print(f"  ratio 5 targets / 1 target (p50): {ratio:.2f}x   goal: p50 <= 3 s")
    print(f"  engines: {engines}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-tokens", action="store_true")
    parser.add_argument("--skip-game", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="print every game request's time")
    options = parser.parse_args()
    if not options.skip_tokens:
        llm_throughput(options.rounds)
    if not options.skip_game:
        game_latency(options.requests, options.verbose)


if __name__ == "__main__":
    main()
