"""Comparing recognised or translated text with a reference, robustly across CPUs.

Models decode slightly differently on different CPUs and under load, so tests
assert how much of a reference was recovered (recall of its distinct words),
with thresholds set well below what the models reach, never exact output.
"""

from __future__ import annotations

import re


def words(text: str) -> list[str]:
    """Lower-case words (letters and apostrophes)."""
    return re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text.lower())


def recall(reference: str, heard: str) -> float:
    """Share of the reference's distinct words that occur in ``heard``."""
    want = set(words(reference))
    return len(want & set(words(heard))) / len(want) if want else 1.0


def word_error_rate(reference: str, heard: str) -> float:
    """Word-level Levenshtein distance over the reference's length (words as :func:`words` splits them)."""
    return edit_rate(words(reference), words(heard))


def char_error_rate(reference: str, heard: str) -> float:
    """Character-level error rate, for scripts without spaces (ja, zh); punctuation and spaces ignored."""
    keep = re.compile(r"[\W_]+")
    return edit_rate(list(keep.sub("", reference.lower())), list(keep.sub("", heard.lower())))


def edit_rate(ref: list[str], hyp: list[str]) -> float:
    """Levenshtein distance between two token lists over the reference's length."""
    if not ref:
        return 0.0 if not hyp else 1.0
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[-1] / len(ref)
