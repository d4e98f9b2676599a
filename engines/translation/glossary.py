"""Glossaries: fixed translations for names and terms, enforced around any engine.

Engines cannot be trusted to respect terminology (Apertium has no notion of
it, an LLM paraphrases), so a glossary term never reaches the engine at all:
the matched source term is protected like a placeholder and its sentinel
restores to the exact target term. The target term is inserted as given,
without inflection; that is the price of a guarantee.

Matching is Unicode-aware: the longest term wins where terms overlap, a
term matches only as a whole word where its script separates words with
spaces, and anywhere in scripts that do not (Chinese, Japanese, Thai...).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

from engines.translation.languages import primary
from engines.translation.markup import GLOSSARY, Span

# Scripts written without spaces between words, and Hangul, whose particles
# attach to the noun: a word boundary there would block most real matches.
_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]"
)


@dataclass(frozen=True)
class Glossary:
    """Source term → target term for one language pair.

    Attributes:
        source_lang: API code of the source language.
        target_lang: API code of the target; a primary code covers its
            variants, a variant (``pt-BR``) covers only itself.
        entries: source term → exact target term.
        case_sensitive: when False, ``Sword`` and ``sword`` both match.
    """

    source_lang: str
    target_lang: str
    entries: Mapping[str, str]
    case_sensitive: bool = False
    _pattern: re.Pattern[str] | None = field(init=False, repr=False, compare=False, default=None)
    _targets: tuple[str, ...] = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        terms = sorted(
            ((" ".join(k.split()), v) for k, v in self.entries.items() if k.strip()),
            key=lambda kv: (-len(kv[0]), kv[0]),
        )
        keys = [t if self.case_sensitive else t.casefold() for t, _ in terms]
        if len(set(keys)) != len(keys):
            raise ValueError("glossary has source terms that differ only in case or spacing")
        flags = 0 if self.case_sensitive else re.IGNORECASE
        pattern = "|".join(f"({_term_pattern(t)})" for t, _ in terms)
        object.__setattr__(self, "_pattern", re.compile(pattern, flags) if terms else None)
        object.__setattr__(self, "_targets", tuple(v for _, v in terms))

    def applies_to(self, source_lang: str, target_lang: str) -> bool:
        """True when this glossary is meant for a request between these languages."""
        if primary(source_lang) != primary(self.source_lang):
            return False
        return target_lang == self.target_lang or primary(target_lang) == self.target_lang

    def matches(self, text: str) -> list[Span]:
        """Glossary spans in ``text``, leftmost first, longest term first at one position."""
        if self._pattern is None:
            return []
        return [
            Span(m.start(), m.end(), GLOSSARY, m.group(), replacement=self._targets[m.lastindex - 1])
            for m in self._pattern.finditer(text)
            if m.lastindex is not None
        ]


def _term_pattern(term: str) -> str:
    """Regex for one term: flexible inner spacing, word boundaries where the script has them."""
    body = r"[ \t\u00a0]+".join(re.escape(part) for part in term.split())
    before = r"(?<!\w)" if _needs_boundary(term[0]) else ""
    after = r"(?!\w)" if _needs_boundary(term[-1]) else ""
    return before + body + after


def _needs_boundary(char: str) -> bool:
    is_word = char.isalnum() or char == "_" or unicodedata.category(char).startswith("M")
    return is_word and not _UNSPACED.match(char)


def enforced(glossary: Glossary, source: str, output: str) -> bool:
    """True when every term matched in ``source`` has its target term in ``output``."""
    return all(span.output in output for span in glossary.matches(source))
