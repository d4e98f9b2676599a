"""Benchmark: localizing a string file with the client's batching against one request per string.

Starts Redis, Ray and the Serve app (apertium translator, as bench_api.py), writes a
gettext PO catalog of game strings (single-line UI text, multi-line dialogue, plurals,
placeholders), and localizes it into three targets with ``FileLocalizer`` twice per
round, alternating: batched (strings joined line for line, up to 50,000 characters per
request) and one request per string (the baseline, same client, same concurrency).
Prints wall time and request counts (medians over rounds), the speed-up, and how often
the two modes gave the same translation.

    .venv/bin/python loadtests/bench_file_localization.py --rounds 3 --strings 400
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mediatrans_client import Client  # noqa: E402
from mediatrans_client.file_localization import FileLocalizer, LocalizationReport  # noqa: E402
from mediatrans_client.l10n import Catalog, load  # noqa: E402

from loadtests.bench_api import running_service  # noqa: E402

TARGETS = ["es", "ca", "fr"]
UI = ["Open the inventory", "Save the game", "Quit to the main menu", "Equip {item}", "Sell for %d gold"]
DIALOGUE = [
    "The old castle stands on the hill above the river.\nNobody has entered it for a hundred years.",
    "Your health is low, {player}.\nDrink a potion before the next fight!",
    "The merchant sells swords, shields and magic scrolls.\nHe only takes gold coins.",
]


def write_catalog(path: Path, strings: int) -> Path:
    """A PO file of ``strings`` entries: UI labels, two-line dialogue and plurals, all distinct."""
    blocks = ['msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n']
    for i in range(strings):
        kind = i % 5
        if kind == 4:
            blocks.append(f'msgctxt "loot {i}"\nmsgid "You found %d coin."\nmsgid_plural "You found %d coins."\n'
                          'msgstr[0] ""\nmsgstr[1] ""\n')  # fmt: skip
            continue
        text = f"{DIALOGUE[i % 3]} Chapter {i}." if kind == 3 else f"{UI[i % 5]} ({i})"
        escaped = text.replace('"', '\\"').replace("\n", "\\n")
        blocks.append(f'#. string {i}\nmsgid "{escaped}"\nmsgstr ""\n')
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path


def timed(client: Client, catalog: Catalog, max_chars: int) -> tuple[float, LocalizationReport]:
    localizer = FileLocalizer(client.game, "en", TARGETS, content_type="ui", max_chars=max_chars, concurrency=4)
    started = time.perf_counter()
    report = localizer.run(catalog)
    return time.perf_counter() - started, report


def agreement(a: LocalizationReport, b: LocalizationReport) -> float:
    pairs = [(a.translations[lang][key], b.translations[lang][key]) for lang in TARGETS for key in a.translations[lang]]
    return sum(x == y for x, y in pairs) / max(1, len(pairs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--strings", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, running_service() as (base, _redis_url, token):
        catalog = load(write_catalog(Path(tmp) / "game.po", args.strings), "en")
        characters = sum(len(e.source) + len(e.source_plural or "") for e in catalog.entries)
        with Client(base, token, timeout=120) as client:
            timed(client, catalog, 50_000)  # warm the engines
            batched, single, same = [], [], []
            for _ in range(args.rounds):
                t_batched, r_batched = timed(client, catalog, 50_000)
                t_single, r_single = timed(client, catalog, 1)  # every string alone
                batched.append((t_batched, r_batched.requests))
                single.append((t_single, r_single.requests))
                same.append(agreement(r_batched, r_single))
        tb = statistics.median(t for t, _ in batched)
        ts = statistics.median(t for t, _ in single)
        print(f"\n{len(catalog.entries)} PO entries, {characters} source characters, targets {', '.join(TARGETS)}; "
              f"median of {args.rounds} rounds, 4 requests in flight:")  # fmt: skip
        print(f"  batched (line for line, <= 50,000 chars)  {tb:7.2f} s  {batched[0][1]:5d} requests")
        print(f"  one request per string (baseline)        {ts:7.2f} s  {single[0][1]:5d} requests")
        print(f"  speed-up (baseline / batched time): {ts / tb:.1f}x; same translation in both modes: "
              f"{statistics.median(same):.1%} of strings")  # fmt: skip


if __name__ == "__main__":
    main()
