"""Character-level rules: what counts as a character, where a line may break.

Scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Myanmar)
may break between any two characters, so their words are cut into single
characters ("units"). A unit keeps its combining marks and dependent vowels,
closing punctuation stays with the character before it and opening brackets
with the character after it, so no line starts with "。" or ends with "「".
Thai is therefore broken by character, not by dictionary word: correct
Thai word segmentation needs a dictionary model this package does not carry.
Every other script (Latin, Cyrillic, Hangul, Arabic, ...) breaks only at
spaces.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from engines.text.sentences import CLOSERS, ends_with_stop

_NO_SPACE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3000, 0x30FF),  # CJK punctuation, Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x31F0, 0x31FF),  # Katakana extension
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # full-width and half-width forms
    (0x20000, 0x3134F),  # CJK extensions B..G
)

#: Never starts a line: closing punctuation, small kana, prolonged sound mark,
#: Thai/Lao following vowels and repetition marks.
_ATTACH_PREVIOUS = frozenset(
    ".,!?;:%)]}»”’…‥"
    "。，、！？：；」』）】》〉〕］｝〟・ー々〻ゝゞヽヾ〜～"
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ"
    "\u0e2f\u0e30\u0e32\u0e33\u0e45\u0e46"  # Thai ฯ ะ า ำ ๅ ๆ
    "\u0eb0\u0eb2\u0eb3\u0ec6"  # Lao ະ າ ຳ ໆ
)

#: Never ends a line: opening brackets and quotes, Thai/Lao preposed vowels.
_ATTACH_NEXT = frozenset(
    "([{«“‘¿¡「『（【《〈〔［｛〝"
    "\u0e40\u0e41\u0e42\u0e43\u0e44"  # Thai เ แ โ ใ ไ
    "\u0ec0\u0ec1\u0ec2\u0ec3\u0ec4"  # Lao
)

#: Ends a clause: a good place to end a cue or a line.
CLAUSE_END = frozenset(",;:，、；：،؛—–")
_ZERO_WIDTH = frozenset(("Mn", "Me", "Cf"))


def is_no_space(ch: str) -> bool:
    """True for characters of scripts written without spaces between words."""
    code = ord(ch)
    return code >= 0x0E00 and any(lo <= code <= hi for lo, hi in _NO_SPACE_RANGES)


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch) in ("Mn", "Mc", "Me", "Cf")


def display_length(text: str) -> int:
    """Characters a reader sees: code points minus combining marks.

    Thai vowel and tone marks, Devanagari vowel signs and zero-width joiners
    sit on their base character, so counting them would make Thai and Hindi
    lines look longer than they are. Every other character counts as one,
    full-width CJK included (the API defines the limit in characters).
    """
    if text.isascii():
        return len(text)
    return sum(1 for ch in text if unicodedata.category(ch) not in _ZERO_WIDTH)


def is_full_width(ch: str) -> bool:
    """East Asian wide or full-width characters (kana, kanji, full-width forms): one whole character."""
    return unicodedata.east_asian_width(ch) in ("W", "F")


def half_units(text: str) -> int:
    """Width in half-width units: a full-width character is 2, any other visible character 1.

    Japanese counts a half-width character (Latin letters, digits, spaces, half-width kana) as half a
    character, so its line limits are kept in these units (``presets.Preset.half_width``).
    """
    return sum(2 if is_full_width(ch) else 1 for ch in text if unicodedata.category(ch) not in _ZERO_WIDTH)


def char_count(text: str, half_width: bool = False) -> float:
    """Characters of ``text`` as its preset counts them (half-width characters 0.5 where ``half_width``)."""
    return half_units(text) / 2 if half_width else float(display_length(text))


def split_units(word: str) -> list[str]:
    """Cut one space-free word into the smallest pieces a line may break between.

    Runs of space-using scripts stay whole ("iPhone"); each character of a
    no-space script becomes its own unit together with the marks and
    punctuation that must stay with it.
    """
    if word.isascii():
        return [word]
    units: list[str] = []
    pending = ""
    for ch in word:
        if units and not pending and (ch in _ATTACH_PREVIOUS or _is_mark(ch)):
            units[-1] += ch
        elif ch in _ATTACH_NEXT:
            pending += ch
        elif units and not is_no_space(ch) and not is_no_space(units[-1][-1]):
            units[-1] += pending + ch
            pending = ""
        else:
            units.append(pending + ch)
            pending = ""
    if pending:
        if units:
            units[-1] += pending
        else:
            units.append(pending)
    return units


def graphemes(text: str) -> list[str]:
    """Base characters with their combining marks: the pieces a hard split may cut."""
    out: list[str] = []
    for ch in text:
        if out and _is_mark(ch):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def hard_split(text: str, width: int, measure: Callable[[str], int] = display_length) -> list[str]:
    """Cut ``text`` into pieces of at most ``width`` visible characters.

    Only for a single word longer than a whole line (URLs, chemical names):
    it is the one case where a word is broken without a hyphen.
    """
    pieces: list[str] = []
    current = ""
    for cluster in graphemes(text):
        if current and measure(current + cluster) > width:
            pieces.append(current)
            current = ""
        current += cluster
    if current:
        pieces.append(current)
    return pieces


def ending(text: str) -> str:
    """Last meaningful character, skipping closing quotes and brackets."""
    return text.rstrip().rstrip(CLOSERS)[-1:]


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends a sentence (its last mark is a full stop of any script): the best place to end a cue."""
    return ends_with_stop(text)


def ends_clause(text: str) -> bool:
    return ending(text) in CLAUSE_END


def needs_space(before: str, after: str) -> bool:
    """Whether two adjacent words are written with a space between them.

    Used where the source gives no explicit spacing: words stripped of
    spaces by the ASR engine, and lines being joined back into one text.
    """
    if not before or not after:
        return False
    if is_no_space(before[-1]) or is_no_space(after[0]):
        return False
    return after[0] not in _ATTACH_PREVIOUS


def join_lines(lines: tuple[str, ...] | list[str]) -> str:
    """Join wrapped lines back into running text (spaces only where the script uses them)."""
    text = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        text = f"{text} {line}" if needs_space(text, line) else text + line
    return text
