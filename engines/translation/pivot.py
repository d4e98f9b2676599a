"""Pivot routes: two engines chained through a third language (en → sv by the LLM, then sv → no by Apertium).

A ``PivotTranslator`` is a translator engine like any other: the Translator
builds it from the configuration's ``pivots`` out of engines it already runs,
the routing table scores it on the development set under its own name
(``llm>sv>apertium``), and a pair it serves is offered only when that score
reaches the floor. It receives the text the safety layer has protected, so
placeholders and markup travel through both legs as sentinels and are
restored once, at the end. Hints that describe the target (length, formality,
glossary terms) steer only the second leg; the first gets the content hints.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from engines.translation.base import (
    TranslationHints,
    TranslationRequest,
    TranslationResult,
    TranslatorEngine,
)
from engines.translation.languages import primary


class PivotTranslator(TranslatorEngine):
    """``first`` translates into ``via``, ``second`` from ``via`` into the target."""

    def __init__(self, first: TranslatorEngine, second: TranslatorEngine, via: str, targets: Iterable[str] | None = None) -> None:
        super().__init__()
        self.first, self.second, self.via = first, second, via
        self.targets = frozenset(targets) if targets is not None else None
        self.name = f"{first.name}>{via}>{second.name}"  # type: ignore[misc]  # one name per configured route
        self._composed: tuple[tuple[frozenset[tuple[str, str]], ...], frozenset[tuple[str, str]]] | None = None

    def start(self) -> None:
        """Nothing to load: both legs are engines the Translator has started."""

    def pairs(self) -> frozenset[tuple[str, str]]:
        """The composed pairs, worked out again only when a leg's pairs change (the router asks on every request)."""
        legs = (self.first.pairs(), self.second.pairs())
        if self._composed is None or self._composed[0] != legs:
            self._composed = (legs, self._compose(*legs))
        return self._composed[1]

    def _compose(self, first: frozenset[tuple[str, str]], second: frozenset[tuple[str, str]]) -> frozenset[tuple[str, str]]:
        into = {source for source, target in first if target == self.via}
        out = {target for source, target in second if source == self.via}
        if self.targets is not None:
            out = {t for t in out if t in self.targets or primary(t) in self.targets}
        return frozenset(
            (source, target)
            for source in into
            for target in out
            if primary(source) != primary(target) and self.via not in (primary(source), primary(target))
        )

    def health(self) -> None:
        self.first.health()
        self.second.health()

    def describe(self) -> dict[str, object]:
        return {"engine": self.name, "via": self.via, "first": self.first.name, "second": self.second.name}

    def translate(self, request: TranslationRequest) -> TranslationResult:
        hints = request.hints
        content_only = TranslationHints(
            content_type=hints.content_type, genre=hints.genre, tone=hints.tone, domain=hints.domain, mode=hints.mode
        )
        middle = self.first.translate(replace(request, target_lang=self.via, hints=content_only, examples=()))
        final = self.second.translate(
            replace(request, texts=middle.texts, source_lang=self.via, context=(), following=(), examples=())
        )
        return TranslationResult(final.texts, engine=self.name, route=(request.source_lang, self.via, request.target_lang))
