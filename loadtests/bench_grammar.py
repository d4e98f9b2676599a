"""Benchmark: grammar checking of 1,000 characters, in-process and through HTTP, in one run.

In-process: each English engine alone, the CPU profile's default engines, and
every English engine (defaults + Quire), for English and five more languages;
then LanguageTool's languages loaded one by one (first request with the load,
a warm request, the resident memory of each language's worker).
Through HTTP: the real Serve app (Redis, Ray, Ingress, Grammar) with the default
engines, then redeployed with every English engine on; one request at a time
(latency) from a separate process (loadgen.py). Prints p50/p99 latency and
characters per second; ratios compare HTTP with in-process (the serving
overhead) and each figure with the goals (p50 ≤ 50 ms default, ≤ 150 ms all).

    .venv/bin/python loadtests/bench_grammar.py --repeat 40 --duration 10
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.bench_api import make_token  # noqa: E402
from loadtests.local_profile import start_ray  # noqa: E402
from tests.support.services import free_port, redis_server, wait_http_ok  # noqa: E402

SAMPLES = {
    "en": "The city council met on Tuesday to discuss the new budget for the coming year. Several members argued "
    "that the plan for the park was to expensive, while others said it would bring visitors to the old town. "
    "The mayor promised that the library will stay open on weekends.",
    "fr": "Le conseil municipal s'est réuni mardi pour discuter du budget de l'année prochaine. Plusieurs membres ont "
    "estimé que le projet de parc était trop cher, tandis que d'autres pensent qu'il attirera des visiteurs.",
    "de": "Der Stadtrat traf sich am Dienstag, um den Haushalt für das kommende Jahr zu besprechen. Mehrere Mitglieder "
    "hielten den Plan für den Park für zu teuer, während andere meinten, er werde Besucher in die Altstadt bringen.",
    "es": "El ayuntamiento se reunió el martes para debatir el presupuesto del próximo año. Varios concejales dijeron "
    "que el proyecto del parque era demasiado caro, mientras otros afirmaron que atraería visitantes al centro.",
    "it": "Il consiglio comunale si è riunito martedì per discutere il bilancio del prossimo anno. Diversi consiglieri "
    "hanno detto che il progetto del parco era troppo costoso, mentre altri pensano che porterà visitatori.",
    "pt": "A câmara municipal reuniu-se na terça-feira para discutir o orçamento do próximo ano. Vários vereadores "
    "disseram que o projeto do parque era demasiado caro, enquanto outros acham que trará visitantes ao centro.",
}
GOALS_MS = {"default": 50.0, "all English engines": 150.0}
#: The first German request of each engine set through HTTP (German loaded on it), in ms.
FIRST_HTTP_MS: dict[str, float] = {}


def thousand(text: str) -> str:
    """About 1,000 characters: the sample repeated, cut at a sentence end."""
    long = (text + " ") * (1000 // len(text) + 2)
    return long[: long.rfind(".", 0, 1000) + 1]


def engine_sets() -> dict[str, list[dict[str, Any]]]:
    args = yaml.safe_load((ROOT / "configs" / "local.yaml").read_text())["applications"][0]["args"]
    default = list(args["grammar"]["engines"])
    return {"default": default, "all English engines": [*default, {"engine": "quire"}]}


def percentiles(samples_ms: list[float]) -> tuple[float, float]:
    ordered = sorted(samples_ms)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def in_process(repeat: int) -> dict[str, dict[str, tuple[float, float]]]:
    from engines.grammar.checker import DEFAULT_CHUNK_CHARS, DEFAULT_WORKERS, GrammarChecker, GrammarRequest
    from engines.registry import create_engine

    results: dict[str, dict[str, tuple[float, float]]] = {}
    singles = {
        "harper alone": [{"engine": "harper"}],
        "languagetool alone": [{"engine": "languagetool"}],
        "quire alone": [{"engine": "quire"}],
    }
    for name, specs in {**singles, **engine_sets()}.items():
        engines = [create_engine(s["engine"], s.get("options")) for s in specs]
        for engine in engines:
            engine.start()
        checker = GrammarChecker(engines, chunk_chars=DEFAULT_CHUNK_CHARS, workers=DEFAULT_WORKERS)  # type: ignore[arg-type]
        results[name] = {}
        for lang, sample in SAMPLES.items():
            if name.endswith("alone") and lang != "en":
                continue
            text = thousand(sample)
            request = GrammarRequest(text=text, lang=lang)
            for _ in range(3):
                checker.check(request)  # warm-up
            times = []
            for _ in range(repeat):
                started = time.perf_counter()
                checker.check(request)
                times.append((time.perf_counter() - started) * 1000)
            results[name][lang] = percentiles(times)
        checker.shutdown()
    return results


def cold_languages() -> dict[str, tuple[float, float, float]]:
    """Per language, LanguageTool alone: (first check with the load, a warm check in ms, resident MB of its worker)."""
    from engines.grammar.lingotweaker_engine import LingoTweakerEngine
    from engines.grammar.types import CheckOptions

    engine = LingoTweakerEngine(preload=[], memory_budget_mb=100_000)
    engine.start()
    out = {}
    try:
        for lang, sample in SAMPLES.items():
            text = thousand(sample)
            started = time.perf_counter()
            engine.check(text, CheckOptions(lang))
            first = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            engine.check(text, CheckOptions(lang))
            warm = (time.perf_counter() - started) * 1000
            rss = next(mb for code, mb in engine.loaded().items() if code.split("-")[0] == lang)
            out[lang] = (first, warm, rss)
    finally:
        engine.shutdown()
    return out


def first_request_http(base: str, token: str, lang: str) -> float:
    """Milliseconds of the first ``lang`` request through HTTP (its LanguageTool language not loaded yet)."""
    import httpx

    body = {"text": thousand(SAMPLES[lang]), "lang": lang}
    started = time.perf_counter()
    response = httpx.post(f"{base}/v1/grammar", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=120)
    response.raise_for_status()
    return (time.perf_counter() - started) * 1000


def through_http(duration: float) -> dict[str, tuple[float, float]]:
    import ray
    from ray import serve

    from serve_app.app import build_app

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    results: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as redis:
        start_ray()
        try:
            serve.start(http_options={"host": "127.0.0.1", "port": port})
            token = None
            for name, engines in engine_sets().items():
                args = {"redis_url": redis.url, "grammar": {"engines": engines}}
                serve.run(build_app(args), name="mediatrans", route_prefix="/")
                wait_http_ok(f"{base}/readyz", 180)
                token = token or make_token(redis.url)
                FIRST_HTTP_MS[name] = first_request_http(base, token, "de")
                body = json.dumps({"text": thousand(SAMPLES["en"]), "lang": "en"})
                results[name] = _load(f"{base}/v1/grammar", token, body, duration)
        finally:
            serve.shutdown()
            ray.shutdown()
    return results


def _load(url: str, token: str, body: str, duration: float) -> tuple[float, float]:
    cmd = [sys.executable, str(ROOT / "loadtests" / "loadgen.py"), "--url", url, "--method", "POST", "--body", body]
    cmd += ["--token", token, "--concurrency", "1", "--duration", str(duration)]
    subprocess.run([*cmd[:-1], "3"], check=True, capture_output=True)  # warm-up
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    assert out["errors"] == 0, out
    return out["p50_ms"], out["p99_ms"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=40, help="in-process checks per language and engine set")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of HTTP load per engine set")
    args = parser.parse_args()
    local = in_process(args.repeat)
    cold = cold_languages()
    http = through_http(args.duration)
    chars = len(thousand(SAMPLES["en"]))
    print(f"\nin-process, {args.repeat} checks of ~1,000 characters each (p50 / p99 ms, characters per second at p50):")
    for name, per_lang in local.items():
        row = "  ".join(f"{lang} {p50:6.1f}/{p99:6.1f} ({chars / p50 * 1000:7.0f}/s)" for lang, (p50, p99) in per_lang.items())
        print(f"  {name:22} {row}")
    print("\nLanguageTool languages loaded on first use (~1,000 characters; ms, resident MB of the language's worker):")
    for lang, (first, warm, rss) in cold.items():
        ratio = first / warm
        print(f"  {lang}: first request {first:7.0f} ms   warm {warm:6.1f} ms   first/warm {ratio:5.1f}   RSS {rss:4.0f} MB")
    print(f"  all {len(cold)} loaded at once: {sum(r for *_, r in cold.values()):.0f} MB")
    for name, ms in FIRST_HTTP_MS.items():
        print(f"  through HTTP, {name}: the first German request (German not yet loaded) took {ms:.0f} ms")
    print(f"\nthrough HTTP, English, one request at a time for {args.duration:.0f} s:")
    for name, (p50, p99) in http.items():
        overhead = p50 / local[name]["en"][0]
        goal = GOALS_MS[name]
        print(
            f"  {name:22} p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  {chars / p50 * 1000:7.0f} chars/s  "
            f"HTTP/in-process {overhead:4.2f}  p50/goal({goal:.0f} ms) {p50 / goal:4.2f}"
        )


if __name__ == "__main__":
    main()
