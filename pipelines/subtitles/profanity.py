"""Masking of strong profanity in subtitle text (API ``profanity_filter``).

Word lists live in ``profanity/<lang>.txt``, one entry per line, ``#``
starting a comment. An entry matches a whole word, case-insensitively; an
entry ending in ``*`` matches any word starting with it (``fuck*`` covers
"fucking", "fucked"), used only for stems with no innocent continuations.
Matching works on NFC-normalised text, with word boundaries defined by
Unicode letters and digits, so "class" never matches "ass" and "Scheiße"
matches "scheiße".

Languages without a list pass through unchanged: whole-word matching needs
word boundaries, which Chinese, Japanese and Thai do not write, and a
substring list there would mask innocent words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path

from pipelines.subtitles.types import Cue

MASK = "***"
_LISTS = Path(__file__).with_name("profanity")


def supported_languages() -> frozenset[str]:
    """Language codes that have a word list."""
    return frozenset(p.stem for p in _LISTS.glob("*.txt"))


def primary_language(code: str) -> str:
    """``pt-BR`` -> ``pt``, ``zh_Hant`` -> ``zh``, ``EN`` -> ``en``."""
    return re.split(r"[-_]", code.strip(), maxsplit=1)[0].lower()


@cache
def load_words(language: str) -> tuple[str, ...]:
    """Entries of a language's list; empty for a language without one."""
    path = _LISTS / f"{primary_language(language)}.txt"
    if not path.is_file():
        return ()
    entries = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        entry = raw.split("#", 1)[0].strip()
        if entry:
            entries.append(_entry(entry))
    return tuple(entries)


def _entry(word: str) -> str:
    """A validated list entry: at least three characters before any ``*``."""
    entry = unicodedata.normalize("NFC", word.strip()).lower()
    if len(entry.rstrip("*")) < 3 or "*" in entry.rstrip("*"):
        raise ValueError(f"profanity entries need 3+ characters and only a trailing '*', got {word!r}")
    return entry


def _pattern(entries: Iterable[str]) -> re.Pattern[str] | None:
    alternatives = []
    for entry in sorted(set(entries), key=len, reverse=True):
        if entry.endswith("*"):
            alternatives.append(re.escape(entry[:-1]) + r"\w*")
        else:
            alternatives.append(re.escape(entry))
    if not alternatives:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)", re.IGNORECASE)


class ProfanityFilter:
    """Replaces each offensive word of one language with ``***``.

    Args:
        language: API language code of the text (regional variants map to
            their primary language).
        extra_words: More entries, same syntax as the list files.
    """

    def __init__(self, language: str, extra_words: Iterable[str] = ()) -> None:
        self.language = primary_language(language)
        extra = [_entry(word) for word in extra_words if word.strip()]
        self._pattern = _pattern([*load_words(self.language), *extra])

    @property
    def active(self) -> bool:
        """False when there is nothing to mask for this language."""
        return self._pattern is not None

    def censor(self, text: str) -> str:
        """``text`` with every listed word replaced by ``***``."""
        if self._pattern is None:
            return text
        return self._pattern.sub(MASK, unicodedata.normalize("NFC", text))

    def censor_lines(self, lines: Iterable[str]) -> tuple[str, ...]:
        """``censor`` applied line by line.

        Every list entry is at least three characters, so masking never
        lengthens a line and wrapped lines stay within their limit.
        """
        return tuple(self.censor(line) for line in lines)


def censor_cues(cues: Sequence[Cue], language: str, original_language: str | None = None) -> list[Cue]:
    """Cues with ``lines`` masked for ``language`` and ``original_lines`` for ``original_language``.

    Speaker labels are untouched (no list entry matches them). Without
    ``original_language`` the source block of bilingual cues is left as is.
    """
    shown = ProfanityFilter(language)
    source = ProfanityFilter(original_language) if original_language else None
    return [
        replace(
            cue,
            lines=shown.censor_lines(cue.lines),
            original_lines=source.censor_lines(cue.original_lines) if source else cue.original_lines,
        )
        for cue in cues
    ]
