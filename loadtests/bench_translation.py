"""Benchmark: game localization over HTTP, and the Translator's overhead over bare apertium.

1. Starts Redis, Ray and the Serve app (CPU profile) and posts a 200-character
   UI string into 5 targets through ``POST /v1/game/localization``
   (req/s, p50, p99 with loadtests/loadgen.py in its own process).
2. Translates the same English text with ``SafeTranslator(ApertiumEngine)``
   (placeholder protection, batching, restore) and with a direct
   ``apertium eng-spa`` subprocess call, alternating, and prints characters per
   second of each and the overhead ratio (median of rounds).

    .venv/bin/python loadtests/bench_translation.py --rounds 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.translation.apertium.engine import ApertiumEngine  # noqa: E402
from engines.translation.base import TranslationRequest  # noqa: E402
from engines.translation.safe import SafeTranslator  # noqa: E402
from loadtests.bench_api import load, running_service  # noqa: E402

UI_STRING = (
    "Welcome back, {player}! Your <color=#ffd700>daily reward</color> of %d gold is ready. "
    "Press [b]Claim[/b] before midnight to keep your streak alive and unlock the next legendary treasure chest, hero!!!"
)
assert len(UI_STRING) == 200, len(UI_STRING)
TARGETS = ["es", "pt-BR", "ca", "fr", "it"]
SENTENCES = [
    "The old castle stands on the hill above the river.",
    "Players can trade items with other players in the market.",
    "Press the button to open the door and enter the dungeon.",
    "Your health is low, so drink a potion before the next fight.",
    "The merchant sells swords, shields and magic scrolls.",
]


def corpus(lines: int) -> list[str]:
    return [SENTENCES[i % len(SENTENCES)] + f" Chapter {i}." for i in range(lines)]


def time_direct(lines: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(["apertium", "-u", "eng-spa"], input="\n".join(lines).encode(), check=True, capture_output=True)
    return time.perf_counter() - started


def time_ours(translator: SafeTranslator, lines: list[str]) -> float:
    started = time.perf_counter()
    result = translator.translate(TranslationRequest(tuple(lines), "en", "es"))
    assert len(result.texts) == len(lines)
    return time.perf_counter() - started


def apertium_overhead(rounds: int, lines: int) -> None:
    engine = ApertiumEngine()
    engine.start()
    translator = SafeTranslator(engine)
    text = corpus(lines)
    chars = sum(len(line) for line in text)
    time_ours(translator, text[:5])  # warm the OS cache
    direct, ours = [], []
    for _ in range(rounds):
        direct.append(time_direct(text))
        ours.append(time_ours(translator, text))
    d, o = statistics.median(direct), statistics.median(ours)
    print(f"\napertium en→es, {lines} lines / {chars} characters, median of {rounds} rounds:")
    print(f"  direct `apertium -u eng-spa`      {chars / d:10.0f} chars/s  ({d * 1000:.0f} ms)")
    print(f"  SafeTranslator(ApertiumEngine)    {chars / o:10.0f} chars/s  ({o * 1000:.0f} ms)")
    print(f"  overhead ratio (ours / direct time): {o / d:.2f}x   (goal <= 1.5x)")


def http_localization(args: argparse.Namespace) -> None:
    with running_service() as (base, _redis_url, token):
        body = json.dumps({"text": UI_STRING, "content_type": "ui", "source_lang": "en", "target_langs": TARGETS})
        url = f"{base}/v1/game/localization"
        runs = [load(url, args, token, method="POST", body=body) for _ in range(args.http_rounds)]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(
        f"\nPOST /v1/game/localization, {len(UI_STRING)}-char UI string into {len(TARGETS)} targets, "
        f"concurrency {args.concurrency}, median of {args.http_rounds} x {args.duration:.0f} s:"
    )
    print(
        f"  {med['rps']:.1f} req/s ({med['rps'] * len(TARGETS):.1f} translations/s), p50 {med['p50_ms']:.0f} ms, "
        f"p99 {med['p99_ms']:.0f} ms, errors {med['errors']:.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lines", type=int, default=400)
    parser.add_argument("--http-rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--skip-http", action="store_true")
    args = parser.parse_args()
    apertium_overhead(args.rounds, args.lines)
    if not args.skip_http:
        http_localization(args)


if __name__ == "__main__":
    main()
