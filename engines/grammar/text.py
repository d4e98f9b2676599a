"""Words, sentences and chunks of a text, with their offsets in code points."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import regex as re

from engines.text.sentences import split

# A word: letters with their combining marks (Devanagari vowel signs, accents), with inner apostrophes
# or hyphens (l'eau, don't, e-mail). The ``regex`` package knows Unicode categories; ``re`` does not.
_WORD = re.compile(r"\p{L}[\p{L}\p{M}]*(?:['’\-]\p{L}[\p{L}\p{M}]*)*")
# Things that are not prose words and never spell-checked.
_SKIP = re.compile(r"https?://\S+|www\.\S+|\S+@\S+\.\w+|#\w+|@\w+|`[^`]*`|\{[^}]*\}|<[^>]*>|%[sd]")
_HAS_TEXT = re.compile(r"[\p{L}\p{N}]")


@dataclasses.dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


def words(text: str) -> Iterator[Span]:
    """Prose words of ``text`` (URLs, e-mails, placeholders, markup and code left out)."""
    masked = mask(text)
    for match in _WORD.finditer(masked):
        yield Span(match.start(), match.end(), text[match.start() : match.end()])


def mask(text: str) -> str:
    """``text`` with non-prose spans blanked, offsets unchanged."""
    return _SKIP.sub(lambda m: " " * len(m.group()), text)


def sentences(text: str) -> Iterator[Span]:
    """Sentences (or paragraphs) with their offsets; whitespace between them is left out.

    Every full stop before a space ends one (``next_word="any"``), a lower-case word after it
    included: that word is what the capitalisation rule looks for.
    """
    for sentence in split(text, next_word="any"):
        yield Span(sentence.start, sentence.end, text[sentence.start : sentence.end])


def chunks(text: str, max_chars: int) -> list[Span]:
    """Consecutive runs of whole sentences of at most ``max_chars`` (a longer sentence is its own chunk)."""
    out: list[Span] = []
    start = end = None
    for sentence in sentences(text):
        if start is None:
            start, end = sentence.start, sentence.end
        elif sentence.end - start > max_chars:
            out.append(Span(start, end, text[start:end]))  # type: ignore[arg-type]
            start, end = sentence.start, sentence.end
        else:
            end = sentence.end
    if start is not None:
        out.append(Span(start, end, text[start:end]))  # type: ignore[arg-type]
    return out


def has_text(text: str) -> bool:
    """Whether ``text`` holds any letter or digit (else there is nothing to check)."""
    return bool(_HAS_TEXT.search(text))
