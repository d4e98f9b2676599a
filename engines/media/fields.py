"""Numeric fields of ffprobe's and ffmpeg's output, read without raising.

ffprobe writes numbers as JSON strings or numbers, ``"N/A"`` where it does not
know one, and leaves fields out; ffmpeg's ``-progress`` lines are bytes.
Whatever is not a usable number reads as 0, and so does a duration of zero or
less: the callers decide what a missing value means (``probe.validate``
refuses an unknown duration, ``voice.audio`` measures it by decoding).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any


def int_field(value: Any) -> int:
    """``value`` as an int: ``"48000"`` → 48000; missing, ``"N/A"``, ``"2.5"`` and infinities → 0."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return 0


def float_field(value: Any) -> float:
    """``value`` as a positive finite float: ``"3.5"`` or ``b"3.5"`` → 3.5; missing, garbage, NaN, ±inf and ≤ 0 → 0.0."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return number if math.isfinite(number) and number > 0 else 0.0


def rate_field(value: Any) -> float:
    """A frame rate as ffprobe writes it: ``"30000/1001"`` → 29.97; ``"0/0"`` and garbage → 0.0."""
    try:
        return float(Fraction(str(value)))
    except (ValueError, ZeroDivisionError, OverflowError):
        return 0.0


def clock_field(value: Any) -> float:
    """Matroska's ``HH:MM:SS.nnnnnnnnn`` duration tag in seconds; 0.0 when absent."""
    parts = str(value or "").split(":")
    if len(parts) != 3:
        return 0.0
    hours, minutes, seconds = (float_field(p) for p in parts)
    return hours * 3600 + minutes * 60 + seconds
