"""Where sentences end, in any script: the one sentence splitter that speech, grammar, translation and subtitles use.

A sentence ends at a full stop (``. ! ? …`` and ``‼ ⁇ ⁈ ⁉``; in Greek also ``;``, its question
mark once NFC-normalised) that whitespace or the end of the text follows; closing quotes and
brackets after the mark stay with the sentence. The full stops of scripts written without spaces
(``。！？``), the Devanagari danda (``। ॥``), the Arabic and Urdu marks (``؟ ۔``) and the Ethiopic
and Myanmar full stops (``። ။``) end a sentence whatever follows them. A blank line always ends one.
A decimal point (``3.5``) or a dot inside a word (``example.com``) never does: no space follows.

Whether a full stop before a space ends the sentence depends on how sure the caller must be
(``next_word``):

* ``"any"``: every one does; a grammar checker wants ``It rained. then`` as two sentences, the
  second one wrongly in lower case;
* ``"not_lowercase"`` (the default): not before a lower-case word (``Hmm... yes``);
* ``"capital"``: only before a capital letter or a digit, past opening quotes and brackets; a
  translator must not cut ``Score: <x0/>. <x1/> wins`` in two.

In every mode a lone ``.`` after an initial (``J. K. Rowling``, ``the U.S. border``) or after one of
the caller's ``abbreviations`` (``Mr. Smith``) does not end a sentence. :data:`ABBREVIATIONS` holds
the English and Portuguese ones; speech expands abbreviations per language before it splits, and
the grammar rules judge them per language, so those pass none.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Collection
from typing import Literal

#: How sure a full stop before a space must be that a new sentence follows (see the module docstring).
NextWord = Literal["any", "not_lowercase", "capital"]

#: End a sentence before whitespace or the end of the text.
FULL_STOPS = ".!?…‼⁇⁈⁉"
#: End a sentence whatever follows: CJK, Devanagari, Arabic and Urdu, Ethiopic and Myanmar full stops.
SCRIPT_STOPS = "。！？।॥؟۔።။"
#: After these a sentence asks or exclaims.
QUESTION_MARKS = frozenset("?!？！؟‼⁇⁈⁉")
#: Closing quotes and brackets: they stay with the sentence they follow.
CLOSERS = "\"'”’»)]}」』）】》〉〕］｝"
#: Opening quotes and brackets that may stand before a sentence's first word.
OPENERS = "\"'“‘«([{¿¡「『（【《〈〔［｛〝"
#: English and Portuguese words (lower case, final full stop left out) whose full stop does not end a sentence.
# fmt: off
ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "dra", "prof", "profa", "sr", "sra", "srta", "jr", "st", "vs", "etc", "e.g", "i.e",
    "no", "nº", "n.º", "ex", "p.ex", "fig", "vol", "cap", "pág", "av", "approx",
})
# fmt: on

_GREEK_QUESTION = ";"
_EDGES = frozenset(OPENERS + CLOSERS)
_STOPS = frozenset(FULL_STOPS + SCRIPT_STOPS)


@dataclasses.dataclass(frozen=True)
class SentenceSpan:
    """One sentence, ``text[start:end]``: whitespace around it left out, closing quotes and brackets kept."""

    start: int
    end: int
    #: The marks that ended it (``"?!"``, ``"。"``); empty where the text or a paragraph ran out first.
    stop: str = ""
    #: Whether it asks or exclaims (``?``, ``!`` and their kin; ``;`` in Greek).
    question: bool = False


def split(
    text: str, *, lang: str = "", next_word: NextWord = "not_lowercase", abbreviations: Collection[str] = ()
) -> list[SentenceSpan]:
    """The sentences of ``text`` in order, each with its offsets; blank stretches give none.

    ``lang`` (an ISO 639-1 code) adds the language's own marks (Greek ``;``); ``abbreviations`` are
    lower-case words without their full stop.
    """
    greek = lang == "el"
    out: list[SentenceSpan] = []
    start = 0
    for match in _pattern(greek).finditer(text):
        stop = match.group("stop") or match.group("script") or ""
        if match.group("blank") is not None:
            end = match.start()
        elif match.group("script") is not None or _ends(text, match, next_word, abbreviations):
            end = match.end()
        else:
            continue
        question = any(ch in QUESTION_MARKS for ch in stop) or (greek and _GREEK_QUESTION in stop)
        _append(out, text, start, end, stop, question)
        start = match.end()
    _append(out, text, start, len(text), "", False)
    return out


def sentence_follows(text: str, pos: int, next_word: NextWord = "not_lowercase") -> bool:
    """Whether a sentence may start after ``pos``: the text ends there, or its next word passes ``next_word``.

    Whitespace and quotes or brackets before the word are skipped.
    """
    if next_word == "any":
        return True
    size = len(text)
    while pos < size and (text[pos].isspace() or text[pos] in _EDGES):
        pos += 1
    if pos == size:
        return True
    first = text[pos]
    if next_word == "capital":
        return first.isupper() or first.isdigit()
    return not first.islower()


def ends_with_stop(text: str) -> bool:
    """Whether ``text`` ends with a full stop of any script (closing quotes and brackets after it skipped)."""
    return text.rstrip().rstrip(CLOSERS)[-1:] in _STOPS


@functools.cache
def _pattern(greek: bool) -> re.Pattern[str]:
    full = re.escape(FULL_STOPS + (_GREEK_QUESTION if greek else ""))
    closers = re.escape(CLOSERS)
    return re.compile(
        rf"(?P<stop>[{full}]+)[{closers}]*(?=\s|$)"
        rf"|(?P<script>[{re.escape(SCRIPT_STOPS)}]+)[{closers}]*"
        r"|(?P<blank>\n\s*\n)"
    )


def _ends(text: str, match: re.Match[str], next_word: NextWord, abbreviations: Collection[str]) -> bool:
    """Whether a full stop before a space ends its sentence."""
    if match.group("stop") == "." and _abbreviated(text, match.start(), abbreviations):
        return False
    return sentence_follows(text, match.end(), next_word)


def _abbreviated(text: str, dot: int, abbreviations: Collection[str]) -> bool:
    """Whether the ``.`` at ``dot`` closes an initial (``J.``, ``U.S.``) or one of ``abbreviations``."""
    start = dot
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    word = text[start:dot].lstrip(OPENERS)
    last = word.rsplit(".", 1)[-1]
    return (len(last) == 1 and last.isupper()) or word.lower() in abbreviations


def _append(out: list[SentenceSpan], text: str, start: int, end: int, stop: str, question: bool) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        out.append(SentenceSpan(start, end, stop, question))
