"""Benchmark: translation memory retrieval time for a 10,000-pair memory, per segment.

Builds a memory of ``--pairs`` varied synthetic game-text pairs (generated
from word lists with a fixed seed, so every run indexes the same memory),
then asks ``MemoryIndex.similar`` for the ``--k`` closest pairs of each of
``--queries`` segments (edited memory sentences, and sentences the memory
does not hold). It prints the build time (scikit-learn's import apart), p50,
p99 and max per segment, the per-segment cost of the batch call
``similar_many``, and a same-run baseline: a brute-force ``difflib`` scan of
every pair for ``--baseline-queries`` segments, with the speed-up and how
often both agree on the closest pair.

    .venv/bin/python loadtests/bench_memory_retrieval.py
"""

from __future__ import annotations

import argparse
import difflib
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.translation.memory import MemoryIndex, normalise  # noqa: E402


def _words(text: str) -> list[str]:
    return text.split()


VERBS = _words("open close find drop equip sell buy craft repair upgrade enchant bring collect defend attack guard")
THINGS = _words("door chest sword shield potion map key scroll helmet ring bow armor lantern rune crystal quest log")
PLACES = _words("castle village forest cave tower harbor temple market mine bridge swamp desert inn library")
ADJECTIVES = _words("old rusty golden hidden ancient broken cursed shiny heavy tiny frozen burning silver")
PEOPLE = _words("blacksmith merchant farmer knight wizard queen captain healer hunter priest")
TIMES = ("dawn", "dusk", "noon", "midnight", "the storm", "the festival", "the siege")
TEMPLATES = (
    "{Verb} the {adj} {thing} in the {place} before {time}.",
    "The {person} needs a {adj} {thing} from the {place}.",
    "Bring {n} {thing}s to the {person} at the {place}.",
    "You found a {adj} {thing}! Press {{0}} to equip it.",
    "Talk to the {person} about the {adj} {thing}.",
    "{n} {adj} {thing}s were stolen from the {place} at {time}.",
    "Defeat the {adj} guardians of the {place} to earn the {thing}.",
    "Your {thing} is {adj}: repair it with the {person}.",
)


def sentence(rng: random.Random) -> str:
    template = rng.choice(TEMPLATES)
    verb = rng.choice(VERBS)
    return template.format(
        Verb=verb.capitalize(),
        adj=rng.choice(ADJECTIVES),
        thing=rng.choice(THINGS),
        place=rng.choice(PLACES),
        person=rng.choice(PEOPLE),
        time=rng.choice(TIMES),
        n=rng.randint(2, 99),
    )


def memory_pairs(n: int, seed: int = 43) -> list[tuple[str, str]]:
    """``n`` distinct pairs; the target stands in for a translation (its text plays no part in retrieval)."""
    rng = random.Random(seed)
    seen: set[str] = set()
    pairs = []
    while len(pairs) < n:
        text = sentence(rng)
        if normalise(text) not in seen:
            seen.add(normalise(text))
            pairs.append((text, f"«{text[::-1]}»"))
    return pairs


def queries(pairs: list[tuple[str, str]], n: int, seed: int = 7) -> list[str]:
    """Half edited memory sentences (a word swapped or added), half new sentences."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 2:
            out.append(sentence(rng))
            continue
        words = rng.choice(pairs)[0].split()
        words[rng.randrange(len(words))] = rng.choice(ADJECTIVES + THINGS)
        out.append(" ".join(words) + rng.choice(["", " now", " quickly"]))
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def difflib_best(text: str, pairs: list[tuple[str, str]]) -> str:
    """The brute-force baseline: the source with the highest ``SequenceMatcher`` ratio."""
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(normalise(text))
    best, best_score = "", -1.0
    for source, _ in pairs:
        matcher.set_seq1(normalise(source))
        score = matcher.ratio()
        if score > best_score:
            best, best_score = source, score
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--baseline-queries", type=int, default=20)
    args = parser.parse_args()

    pairs = memory_pairs(args.pairs)
    asked = queries(pairs, args.queries)
    started = time.perf_counter()
    import sklearn.feature_extraction.text  # noqa: F401 - timed apart: a replica imports it once

    imported = time.perf_counter() - started
    started = time.perf_counter()
    index = MemoryIndex.build(pairs)
    built = time.perf_counter() - started
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load}")
    print(f"memory: {len(index)} pairs; scikit-learn import {imported:.2f} s; build {built:.2f} s")

    index.similar(asked[0], args.k)  # warm
    times, found = [], 0
    for text in asked:
        started = time.perf_counter()
        matches = index.similar(text, args.k)
        times.append((time.perf_counter() - started) * 1000)
        found += bool(matches)
    print(
        f"similar(k={args.k}) over {len(asked)} segments: p50 {percentile(times, 0.5):.3f} ms, "
        f"p99 {percentile(times, 0.99):.3f} ms, max {max(times):.3f} ms, mean {statistics.fmean(times):.3f} ms "
        f"({found} segments got examples)"
    )

    started = time.perf_counter()
    index.similar_many(asked, args.k)
    batch = (time.perf_counter() - started) * 1000 / len(asked)
    print(f"similar_many, one call for all {len(asked)} segments: {batch:.3f} ms per segment")

    probe = asked[: args.baseline_queries]
    baseline, agree = [], 0
    for text in probe:
        started = time.perf_counter()
        best = difflib_best(text, pairs)
        baseline.append((time.perf_counter() - started) * 1000)
        top = index.similar(text, 1, min_score=0.0)
        agree += bool(top) and normalise(top[0].source) == normalise(best)
    ours = statistics.fmean(times)
    print(
        f"baseline, difflib ratio over all {len(pairs)} pairs ({len(probe)} segments): mean "
        f"{statistics.fmean(baseline):.1f} ms per segment; similar() is {statistics.fmean(baseline) / ours:.0f}x faster; "
        f"same closest pair (by its own measure) for {agree} of {len(probe)}"
    )


if __name__ == "__main__":
    main()
