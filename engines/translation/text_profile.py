"""What the output checks know about one text, from a single pass: letters per script, words, length in units.

Sentinels (``<x0/>``) are taken out first (each becomes a space). Web and
e-mail addresses, file names, paths and identifiers are characters but not
language: they count for the length in units and nothing else. Letters
weigh as ``language_tables.LETTER_WEIGHTS`` says, so a Chinese, Japanese,
Korean or English rendering of a sentence weighs about the same.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from engines.translation.language_tables import (
    HANGUL,
    HANGUL_SYLLABLE_WEIGHT,
    LETTER_WEIGHTS,
    UNSPACED,
    script_of,
)

# Read like protect.restore reads engine output: spaces, case, a lost or
# misplaced slash, HTML escaping. Keep in step with protect.SENTINEL (<x0/>).
SENTINEL_PATTERN = re.compile(r"(?:<|&lt;)\s*/?\s*[xX]\s*(\d+)\s*/?\s*(?:>|&gt;)")

# Web addresses, e-mail addresses, file names, paths and identifiers
# ("https://…", "www.…", "a@b.io", "config.yaml", "player_name", "km/h"):
# characters, not language. They count for length only.
_CHUNK = "[^\\s\u2e80-\uffff]"  # a character of a space-delimited run; CJK text has no spaces
_CODE_LIKE = re.compile(
    rf"(?<!{_CHUNK})(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.){_CHUNK}+"
    rf"|{_CHUNK}+@{_CHUNK}+\.[A-Za-z]{_CHUNK}*"
    rf"|(?<!{_CHUNK}){_CHUNK}*?(?:[A-Za-z0-9]_[A-Za-z0-9]|[A-Za-z0-9][./\\][A-Za-z]){_CHUNK}*"
)

_LETTER, _MARK, _DIGIT, _SPACE, _JOINER, _PUNCT = range(6)
_JOINERS = frozenset("'’-‐")
_CHAR_CACHE: dict[str, tuple[int, str]] = {}


def sentinel_counts(text: str) -> Counter[str]:
    """How often each sentinel number occurs, read leniently."""
    return Counter(str(int(m)) for m in SENTINEL_PATTERN.findall(text))


def letter_weight(ch: str, script: str) -> float:
    """One letter's weight in Latin-letter units."""
    if script == HANGUL:
        return HANGUL_SYLLABLE_WEIGHT if "\uac00" <= ch <= "\ud7a3" else 1.0
    return LETTER_WEIGHTS.get(script, 1.0)


def word_count(script: str, word: str) -> int:
    """A word counts once; in scripts written without spaces, every 2 letters count as a word."""
    return math.ceil(len(word) / 2) if script in UNSPACED else 1


@dataclass
class Profile:
    """What the rules need to know about one text, from a single pass."""

    text: str  # sentinels replaced by spaces
    units: float = 0.0  # length in Latin-letter units
    letters: int = 0
    has_alnum: bool = False
    letter_units: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # script -> units
    letter_counts: Counter[str] = field(default_factory=Counter)  # script -> letters
    words: list[tuple[str, str]] = field(default_factory=list)  # (script, word)
    skeleton: str = ""  # letters, marks, digits only, for echo

    @property
    def word_count(self) -> int:
        return sum(word_count(s, w) for s, w in self.words)


def profile(raw: str) -> Profile:
    """``raw`` profiled: sentinels out, code-like runs counted for length only."""
    text = SENTINEL_PATTERN.sub(" ", raw)
    language_text = _CODE_LIKE.sub(" ", text)
    result = _scan(text, language_text)
    if language_text != text:
        result.units = _scan(text, text).units
    result.has_alnum = any(ch.isalnum() for ch in text)
    return result


def _char_class(ch: str) -> tuple[int, str]:
    """(kind, script) of one character, cached."""
    known = _CHAR_CACHE.get(ch)
    if known is not None:
        return known
    if ch.isalpha():
        result = (_LETTER, script_of(ch))
    elif ch.isspace():
        result = (_SPACE, "")
    elif ch.isdigit() or ch.isnumeric():
        result = (_DIGIT, "")
    elif ch in _JOINERS:
        result = (_JOINER, "")
    elif unicodedata.category(ch).startswith("M"):
        result = (_MARK, "")
    else:
        result = (_PUNCT, "")
    if len(_CHAR_CACHE) < 65536:
        _CHAR_CACHE[ch] = result
    return result


def _scan(full: str, text: str) -> Profile:
    found = Profile(full)
    words = found.words
    skeleton: list[str] = []
    word: list[str] = []
    word_script = ""
    pending_space = False
    units = 0.0
    n = len(text)
    for i, ch in enumerate(text):
        kind, script = _char_class(ch)
        if kind == _LETTER:
            weight = letter_weight(ch, script)
            found.letter_units[script] += weight
            found.letter_counts[script] += 1
            found.letters += 1
            skeleton.append(ch)
            if word and script != word_script:
                words.append((word_script, "".join(word)))
                word = []
            if not word:
                word_script = script
            word.append(ch)
        else:
            weight = 1.0
            if kind == _MARK:
                skeleton.append(ch)
                if word:
                    word.append(ch)
            elif kind == _JOINER and word and i + 1 < n and _char_class(text[i + 1])[0] == _LETTER:
                word.append(ch)
            else:
                if word:
                    words.append((word_script, "".join(word)))
                    word = []
                if kind == _DIGIT:
                    skeleton.append(ch)
        if kind == _SPACE:
            pending_space = units > 0
            continue
        if pending_space:
            units += 1.0
            pending_space = False
        units += weight
    if word:
        words.append((word_script, "".join(word)))
    found.units = units
    found.skeleton = unicodedata.normalize("NFKC", "".join(skeleton)).casefold()
    return found
