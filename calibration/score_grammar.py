"""Grammar quality on the project's corpora: precision on correct text, recall of planted errors.

* **Precision**: the share of correct sentences (``tests/data/grammar/clean_scoring.yaml``, held
  out: no rule or filter is tuned on it) that get an issue at the default severity (``warning``),
  per language and per engine, and for the merged answer of the configured engines. Sentences of a
  regional variant (``pt-BR``, ``en-GB``) are checked twice: given as the variant, and given as the
  bare language (``pt``: the variant is then read from the text, else the default one), with the
  variant that was chosen counted.
* **Recall**: the share of planted errors (``tests/data/grammar/planted.yaml``) whose span an issue
  covers (overlaps), per language and per engine, for the merged answer at the default severity and
  at ``severity: info`` (style and wordiness issues are ``info``).

``--calibrate`` instead runs every engine on ``clean_calibration.yaml`` (and the test corpus's
correct text, ``corpus.yaml``) and writes
``configs/grammar/precision.yaml``: the rules that flagged a correct sentence there, per language,
are demoted to ``info``, and so is the spelling of a speller that flagged more than one sentence in
five of a language (engines/grammar/precision.py).

    .venv/bin/python calibration/score_grammar.py            # tables (markdown) on stdout
    .venv/bin/python calibration/score_grammar.py --calibrate
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.grammar import precision  # noqa: E402

try:  # the tool also scores a checkout from before regional variants (a before/after comparison)
    from engines.grammar import variants
except ImportError:  # pragma: no cover
    variants = None  # type: ignore[assignment]
from engines.grammar.checker import SPELLING_ENGINES, GrammarChecker, GrammarRequest  # noqa: E402
from engines.grammar.types import CheckOptions, Issue  # noqa: E402
from engines.registry import create_engine  # noqa: E402

DATA = ROOT / "tests" / "data" / "grammar"


def engines(extra: list[str], skip: list[str], timeout_s: float | None = None) -> list[Any]:
    args = yaml.safe_load((ROOT / "configs" / "local.yaml").read_text())["applications"][0]["args"]
    specs = leave_out([*args["grammar"]["engines"], *({"engine": name} for name in extra)], skip)
    started = []
    for spec in specs:
        options = dict(spec.get("options") or {})
        if timeout_s and spec["engine"] == "languagetool":  # a busy machine loads a language slower
            options["timeout_s"] = timeout_s
        engine = create_engine(spec["engine"], options)
        engine.start()
        started.append(engine)
    return started


def covers(issue: Issue, start: int, end: int) -> bool:
    return issue.offset < end and start < issue.end if issue.length else start <= issue.offset <= end


def raw(engine: Any, text: str, lang: str) -> list[Issue]:
    """One engine's issues after the rule and name demotions (alone, it has no second speller to agree)."""
    return precision.apply(engine.check(text, CheckOptions(lang)), text, lang)


def resolved(lang: str, text: str) -> str:
    """The code the engines check ``text`` in when asked for ``lang`` (``pt`` → ``pt-BR`` or ``pt-PT``)."""
    return variants.resolve(lang, text) if variants is not None else lang


def leave_out(specs: list[dict[str, Any]], skip: list[str]) -> list[dict[str, Any]]:
    return [s for s in specs if s["engine"] not in skip]


def serves(engine: Any, lang: str) -> bool:
    return lang in engine.languages() or lang.split("-")[0] in engine.languages()


def calibrate(started: list[Any]) -> None:
    clean = yaml.safe_load((DATA / "clean_calibration.yaml").read_text(encoding="utf-8"))
    for lang, block in yaml.safe_load((DATA / "corpus.yaml").read_text(encoding="utf-8")).items():
        if isinstance(block, dict):  # the test corpus's correct text (its own languages and variants)
            clean.setdefault(lang, []).extend(block.get("clean", []))
    demote: dict[str, set[str]] = collections.defaultdict(set)
    spelling_flags: dict[tuple[str, str], int] = collections.Counter()
    spelling_engines = [e for e in started if e.name in SPELLING_ENGINES]
    for lang, sentences in clean.items():
        spellers = frozenset(e.name for e in spelling_engines if serves(e, lang))
        for text in sentences:
            found = []
            for engine in started:
                if not serves(engine, lang):
                    continue
                for issue in engine.check(text, CheckOptions(resolved(lang, text))):
                    found.append(issue)
                    if issue.severity != "info" and issue.type != "spelling":
                        demote[lang].add(issue.rule_id)
                        print(f"{lang} {engine.name} {issue.rule_id}: {text[issue.offset : issue.end]!r} in {text[:60]!r}")
            kept = precision.apply(found, text, lang, spellers, calibrated=False)
            for name in {i.engine for i in kept if i.type == "spelling" and i.severity != "info"}:
                spelling_flags[lang, name] += 1
    noisy: dict[str, list[str]] = collections.defaultdict(list)
    for (lang, name), flagged in sorted(spelling_flags.items()):
        share = flagged / len(clean[lang])
        print(f"{lang} {name} spelling flags {flagged} of {len(clean[lang])} sentences ({share:.0%})")
        if share > precision.NOISY_SPELLER_SHARE:
            noisy[lang].append(name)
    head = (
        "# Written by `calibration/score_grammar.py --calibrate` from the correct sentences of\n"
        "# tests/data/grammar/clean_calibration.yaml and corpus.yaml (engines/grammar/precision.py).\n"
        "# demote: rules (other than spelling) that flagged one of them, per language: reported as `info`.\n"
        f"# spelling_info: spellers that flagged more than {precision.NOISY_SPELLER_SHARE:.0%} of a language's sentences:\n"
        "# their spelling issues are `info` there (names and one-speller words are handled in precision.py).\n"
    )
    body = {
        "demote": {lang: sorted(rules) for lang, rules in sorted(demote.items())},
        "spelling_info": {lang: sorted(names) for lang, names in sorted(noisy.items())},
    }
    precision.PATH.write_text(head + yaml.safe_dump(body, allow_unicode=True, sort_keys=False, width=120), encoding="utf-8")
    print(f"wrote {precision.PATH.relative_to(ROOT)}: {sum(len(r) for r in demote.values())} rules in {len(demote)} languages")


def score(started: list[Any]) -> None:
    checker = GrammarChecker(started, chunk_chars=2000, workers=2)
    clean = yaml.safe_load((DATA / "clean_scoring.yaml").read_text(encoding="utf-8"))
    planted = yaml.safe_load((DATA / "planted.yaml").read_text(encoding="utf-8"))
    rows = []  # (label, sentences, language asked for, the variant expected when it is a variant's row)
    for lang, sentences in clean.items():
        rows.append((lang, sentences, lang, None))
        base = lang.split("-")[0]
        if base != lang and (variants is None or variants.has_variants(base)):
            rows.append((f"{lang} as {base}", sentences, base, lang))
    print("## Precision: correct sentences flagged at the default severity (clean_scoring.yaml)\n")
    print("| lang | sentences | merged | " + " | ".join(e.name for e in started) + " | checked in |")
    print("|---|---:|---:|" + "---:|" * len(started) + "---|")
    total = flagged_total = 0
    for label, sentences, lang, expected in rows:
        merged = 0
        per_engine = collections.Counter()
        chosen: collections.Counter[str] = collections.Counter()
        for text in sentences:
            result = checker.check(GrammarRequest(text=text, lang=lang))
            chosen[getattr(result, "variant", None) or lang] += 1
            merged += bool(result.issues)
            for issue in result.issues:
                print(f"    flagged {label} {issue.engine} {issue.rule_id}: {text[issue.offset : issue.end]!r}", file=sys.stderr)
            for engine in started:
                code = resolved(lang, text)
                if serves(engine, code) and any(i.severity != "info" for i in raw(engine, text, code)):
                    per_engine[engine.name] += 1
        total += len(sentences)
        flagged_total += merged
        cells = [f"{per_engine[e.name]}" if serves(e, lang) else "—" for e in started]
        variants_used = ", ".join(f"{code} {n}" for code, n in sorted(chosen.items()))
        if expected:
            variants_used += f" (right variant: {chosen[expected]} of {len(sentences)})"
        print(
            f"| {label} | {len(sentences)} | {merged} ({100 * merged / len(sentences):.1f}%) | "
            + " | ".join(cells)
            + f" | {variants_used} |"
        )
    print(f"| **all** | {total} | **{flagged_total} ({100 * flagged_total / total:.1f}%)** |" + " |" * (len(started) + 1))

    print("\n## Recall: planted errors whose span an issue covers (planted.yaml)\n")
    print("| lang | errors | merged (warning) | merged (info) | " + " | ".join(e.name for e in started) + " |")
    print("|---|---:|---:|---:|" + "---:|" * len(started))
    by_type: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for lang, items in planted.items():
        found_warning = found_info = 0
        per_engine = collections.Counter()
        for item in items:
            start = item["text"].index(item["wrong"])
            end = start + len(item["wrong"])
            at_warning = checker.check(GrammarRequest(text=item["text"], lang=lang))
            at_info = checker.check(GrammarRequest(text=item["text"], lang=lang, min_severity="info"))
            hit_warning = any(covers(i, start, end) for i in at_warning.issues)
            hit_info = any(covers(i, start, end) for i in at_info.issues)
            found_warning += hit_warning
            found_info += hit_info
            by_type[item["type"]][0] += hit_info
            by_type[item["type"]][1] += 1
            if not hit_info:
                print(f"    missed {lang} {item['type']}: {item['wrong']!r} in {item['text']!r}", file=sys.stderr)
            for engine in started:
                if serves(engine, lang) and any(
                    covers(i, start, end) for i in raw(engine, item["text"], resolved(lang, item["text"]))
                ):
                    per_engine[engine.name] += 1
        n = len(items)
        cells = [f"{per_engine[e.name]}" if serves(e, lang) else "—" for e in started]
        print(
            f"| {lang} | {n} | {found_warning} ({100 * found_warning / n:.0f}%) | {found_info} ({100 * found_info / n:.0f}%) | "
            + " | ".join(cells)
            + " |"
        )
    print("\nBy type (merged, severity info): " + ", ".join(f"{t} {h}/{n}" for t, (h, n) in sorted(by_type.items())))
    checker.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calibrate", action="store_true", help="write configs/grammar/precision.yaml")
    parser.add_argument("--extra", default="", help="more engines beside the profile's, e.g. quire")
    parser.add_argument("--skip", default="", help="engines of the profile to leave out, e.g. languagetool")
    parser.add_argument("--timeout-s", type=float, default=None, help="LanguageTool's load timeout (a shared machine)")
    args = parser.parse_args()
    started = engines([e for e in args.extra.split(",") if e], [e for e in args.skip.split(",") if e], args.timeout_s)
    try:
        calibrate(started) if args.calibrate else score(started)
    finally:
        for engine in started:
            engine.shutdown()


if __name__ == "__main__":
    main()
