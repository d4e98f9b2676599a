"""Checks shared by user-named fields that are stored and shown back (glossary and voice names, descriptions).

A name is one line of printable text: no control character (Unicode category
Cc: NUL, ESC, CR, LF, TAB, DEL, C1 controls) and no line or paragraph
separator (U+2028, U+2029), which would let a name break a listing, a log line
or a terminal. A description is free text and may keep tabs and line breaks
(TAB, LF, CR), but no other control character.
"""

from __future__ import annotations

import unicodedata

#: Line and paragraph separators (categories Zl, Zp): line breaks outside Cc.
_SEPARATORS = frozenset("\u2028\u2029")
#: Control characters a free-text description may keep.
_TEXT_WHITESPACE = frozenset("\t\n\r")


def _refused(value: str, allowed: frozenset[str]) -> str | None:
    for char in value:
        if char in allowed:
            continue
        if char in _SEPARATORS or unicodedata.category(char) == "Cc":
            return char
    return None


def _check(value: str | None, allowed: frozenset[str]) -> str | None:
    if value is None:
        return None
    char = _refused(value, allowed)
    if char is not None:
        raise ValueError(f"must not contain control characters (found U+{ord(char):04X})")
    return value


def single_line(value: str | None) -> str | None:
    """``value`` unchanged; ValueError when it holds a control character or a line separator (names)."""
    return _check(value, frozenset())


def free_text(value: str | None) -> str | None:
    """``value`` unchanged; ValueError when it holds a control character other than TAB, LF or CR (descriptions)."""
    return _check(value, _TEXT_WHITESPACE)
