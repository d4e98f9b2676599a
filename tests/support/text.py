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
