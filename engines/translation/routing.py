"""Which engine translates which pair: the measured routing table.

``configs/routing.yaml`` is written by ``calibration/score_engines.py``: for
every pair of the development set (``configs/devset``) and every engine it
holds the corpus chrF. A pair is served when its best engine scores at least
the floor; requests go to that engine first, then to the pair's other
engines by score (below-floor and unscored ones last, as a safety net when
the better ones fail). Regional variants (``pt-BR``) use their primary's
scores, for engines that serve the variant.

Without a table, engines are tried in configuration order and every pair
any of them serves is served (the GPU profile's LLM + Apertium fallback).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from engines.translation.base import TranslationHints, TranslatorEngine
from engines.translation.languages import primary

#: chrF below which a pair is not offered, unless the table says otherwise.
DEFAULT_FLOOR = 40.0


@dataclass(frozen=True)
class RoutingTable:
    """Measured chrF per (source, target) and engine."""

    scores: dict[tuple[str, str], dict[str, float]]
    floor: float = DEFAULT_FLOOR

    @classmethod
    def load(cls, path: str | Path, floor: float | None = None) -> RoutingTable:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        return cls.from_dict(data, floor)

    @classmethod
    def from_dict(cls, data: dict[str, Any], floor: float | None = None) -> RoutingTable:
        scores: dict[tuple[str, str], dict[str, float]] = {}
        for key, entry in (data.get("pairs") or {}).items():
            source, _, target = str(key).partition("-")
            scores[(source, target)] = {str(k): float(v) for k, v in (entry.get("chrf") or {}).items()}
        return cls(scores, float(floor if floor is not None else data.get("floor", DEFAULT_FLOOR)))

    def scores_for(self, source: str, target: str) -> dict[str, float]:
        """Engine → chrF for the pair (a variant target reads its primary's row)."""
        return self.scores.get((source, target)) or self.scores.get((source, primary(target)), {})


class Router:
    """Orders a request's engines by measured quality; knows which pairs are offered."""

    def __init__(self, engines: Sequence[TranslatorEngine], table: RoutingTable | None = None) -> None:
        if not engines:
            raise ValueError("a router needs at least one engine")
        self.engines = list(engines)
        self.table = table
        self._pairs = self._offered()

    def pairs(self) -> frozenset[tuple[str, str]]:
        return self._pairs

    def chain(self, source: str, target: str, prefer: str | None = None) -> list[TranslatorEngine]:
        """Engines to try for a pair, best first; ``prefer`` goes first when it is above the floor."""
        serving = [e for e in self.engines if (source, target) in e.pairs()]
        if self.table is None:
            return serving
        scores = self.table.scores_for(source, target)
        ranked = sorted(serving, key=lambda e: -scores.get(e.name, float("-inf")))
        if prefer is not None:
            liked = [e for e in ranked if e.name == prefer and scores.get(e.name, float("-inf")) >= self.table.floor]
            ranked = liked + [e for e in ranked if e not in liked]
        return ranked

    def route(self, source: str, target: str) -> tuple[str, float | None] | None:
        """The engine that serves a pair first and its chrF (None when the pair is not offered)."""
        if (source, target) not in self._pairs:
            return None
        first = self.chain(source, target)[0]
        score = self.table.scores_for(source, target).get(first.name) if self.table else None
        return first.name, score

    def _offered(self) -> frozenset[tuple[str, str]]:
        every = frozenset().union(*(e.pairs() for e in self.engines))
        if self.table is None:
            return every
        floor = self.table.floor
        offered = set()
        for source, target in every:
            scores = self.table.scores_for(source, target)
            if any(scores.get(e.name, float("-inf")) >= floor for e in self.engines if (source, target) in e.pairs()):
                offered.add((source, target))
        return frozenset(offered)

    def withheld(self) -> dict[tuple[str, str], tuple[str, float | None, float]]:
        """Pairs an engine serves that are not offered: ``(best engine, its chrF or None, floor)``."""
        if self.table is None:
            return {}
        withheld = {}
        for source, target in frozenset().union(*(e.pairs() for e in self.engines)) - self._pairs:
            scores = self.table.scores_for(source, target)
            serving = [e.name for e in self.engines if (source, target) in e.pairs()]
            measured = [(scores[name], name) for name in serving if name in scores]
            best_score, best = max(measured) if measured else (None, serving[0])
            withheld[(source, target)] = (best, best_score, self.table.floor)
        return withheld

    def table_rows(self) -> list[dict[str, Any]]:
        """Pair, engine and score of every offered pair, for docs and ``describe()``."""
        rows = []
        for source, target in sorted(self._pairs):
            route = self.route(source, target)
            if route is not None:
                rows.append({"source": source, "target": target, "engine": route[0], "chrf": route[1]})
        return rows


def preferred_engine(hints: TranslationHints) -> str | None:
    """The engine a request wants first, where it scores above the floor for the pair: the LLM for professional
    translation and for rewriting a draft shorter (subtitles too fast to read; no other engine follows a length
    budget). None: the pair's best measured engine."""
    return "llm" if hints.mode == "professional" or hints.draft is not None else None
