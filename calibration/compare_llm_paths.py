"""Score LLM translation paths side by side on the development set: which choice helps which pair.

    .venv/bin/python calibration/compare_llm_paths.py --pairs en-ja,en-cs \\
        --variant 'batch={"example_count": 0}' --variant 'examples={}' \\
        --variant 'single={"single_segment_targets": ["ja", "cs"]}' --bare

Each ``--variant NAME=JSON`` is the LLM engine of configs/local.yaml with the
JSON's options on top, scored exactly as ``score_engines.py`` scores it (same
devset, same requests of 11 lines, same safety layer); ``--bare`` adds the
bare-model reference (``bare_llm.py``). One server serves every variant, so
the figures differ only by the path. Prints one row per pair: chrF per
variant and the seconds it took. Writes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.bare_llm import BareLLM  # noqa: E402
from calibration.score_engines import engine_specs, load_devset, score_engine  # noqa: E402
from engines.registry import start_engine  # noqa: E402
from engines.translation.base import TranslatorEngine  # noqa: E402
from loadtests.llm_process import local_llm_server  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", required=True, help="comma-separated pairs like en-ja,ja-en")
    parser.add_argument("--variant", action="append", default=[], help="NAME=JSON options over configs/local.yaml")
    parser.add_argument("--bare", action="store_true", help="score the bare-model reference too")
    options = parser.parse_args(argv)
    devset = load_devset()
    pairs = [tuple(p.split("-", 1)) for p in options.pairs.split(",")]
    variants = [(v.split("=", 1)[0], json.loads(v.split("=", 1)[1])) for v in options.variant]
    base = engine_specs(["llm"])[0].get("options", {})
    figures: dict[str, dict[str, tuple[float, float]]] = {}
    with local_llm_server() as url:
        runs: list[tuple[str, TranslatorEngine, bool]] = []
        for name, extra in variants:
            runs.append((name, start_engine("llm", {**base, "base_url": url, **extra}, TranslatorEngine), False))
        if options.bare:
            reference = BareLLM(url, runs[0][1].pairs() if runs else frozenset(pairs))  # type: ignore[arg-type]
            reference.start()
            runs.append(("bare", reference, True))
        for pair in pairs:
            for name, engine, bare in runs:
                started = time.monotonic()
                score = score_engine(engine, devset, [pair], bare=bare).get("-".join(pair), 0.0)  # type: ignore[list-item]
                figures.setdefault("-".join(pair), {})[name] = (score, time.monotonic() - started)
        for _, engine, _ in runs:
            engine.shutdown()
    names = [name for name, _, _ in runs]
    print("| pair | " + " | ".join(names) + " |")
    print("| --- | " + " | ".join("---:" for _ in names) + " |")
    for pair, row in figures.items():
        cells = [f"{row[n][0]:.1f} ({row[n][1]:.0f} s)" if n in row else "" for n in names]
        print(f"| {pair} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
