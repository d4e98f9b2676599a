"""Translation engine interface shared by every translator engine.

Language codes crossing this interface are the API's codes: a primary
ISO 639-1 code (``en``) or one of the contract's regional variants
(``pt-BR``). Engines map them to their own identifiers internally.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

from engines.base import Engine


@dataclass(frozen=True)
class TranslationHints:
    """Steering for engines that can use it (the LLM); others ignore it.

    Attributes:
        content_type: game content kind (ui, dialogue, item_desc, skill, story, tutorial).
        genre: game genre (rpg, fps, ...).
        tone: epic, humorous, dark, cute.
        formality: "formal" / "informal" / None.
        max_length: ask for translations no longer than this many characters.
        domain: free-form domain hint (film, legal, medical, ...).
        mode: "standard" or "professional" (wider context, a review pass; the LLM only).
        summary: what the whole text is about (professional video translation).
        terms: (token, target term) for glossary terms masked as tokens, so the
            model can fit the sentence around them.
        draft: a translation of the request's one text to make shorter (with
            ``max_length``): engines that can rewrite (the LLM) answer a
            condensed version of it; the others translate as usual.
        client_context: what the client says about the text (product, scene,
            audience); shown to the LLM for reference, never translated.
        instructions: the client's instructions on how to translate ("Use
            informal tú"); the LLM follows them within its fixed rules
            (tokens kept, everything translated).
    """

    content_type: str | None = None
    genre: str | None = None
    tone: str | None = None
    formality: str | None = None
    max_length: int | None = None
    domain: str | None = None
    mode: str = "standard"
    summary: str | None = None
    terms: tuple[tuple[str, str], ...] = ()
    draft: str | None = None
    client_context: str | None = None
    instructions: tuple[str, ...] = ()


@dataclass(frozen=True)
class TranslationRequest:
    """A batch of segments to translate from one language into another.

    Attributes:
        texts: the segments; each is translated on its own and the result keeps
            the same count and order. A segment may contain newlines, which
            the engine keeps.
        source_lang: API language code of the source (never ``auto`` here).
        target_lang: API language code of the target (variants allowed).
        context: segments that precede ``texts`` (not translated, context only).
        hints: optional steering.
        following: segments that come after ``texts`` (context only).
        examples: per text of ``texts``, the translation memory's example
            pairs (source, target) for it, closest first; engines that can
            (the LLM) show them to the model. Empty: no examples at all;
            otherwise exactly one entry (possibly empty) per text.
    """

    texts: tuple[str, ...]
    source_lang: str
    target_lang: str
    context: tuple[str, ...] = ()
    hints: TranslationHints = field(default_factory=TranslationHints)
    following: tuple[str, ...] = ()
    examples: tuple[tuple[tuple[str, str], ...], ...] = ()

    def __post_init__(self) -> None:
        if self.examples and len(self.examples) != len(self.texts):
            raise ValueError(f"examples has {len(self.examples)} entries for {len(self.texts)} texts")


@dataclass(frozen=True)
class TranslationResult:
    """Translated segments plus what produced them.

    Attributes:
        texts: one translation per request segment, same order.
        engine: name of the engine that produced the final texts.
        route: the language hops used, e.g. ("en", "es", "pt") for a pivot.
        fallback: True when the configured engine failed and another answered.
    """

    texts: tuple[str, ...]
    engine: str
    route: tuple[str, ...] = ()
    fallback: bool = False


class TranslatorEngine(Engine):
    """An engine that translates text between language pairs."""

    @abc.abstractmethod
    def pairs(self) -> frozenset[tuple[str, str]]:
        """Every (source, target) pair of API codes this engine serves, pivots included."""

    def supports_formality(self) -> frozenset[str]:
        """Target languages for which a formality hint changes the output."""
        return frozenset()

    @abc.abstractmethod
    def translate(self, request: TranslationRequest) -> TranslationResult:
        """Translate ``request.texts``; raise ``UnsupportedLanguage`` for an unknown pair."""

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "pairs": len(self.pairs())}
