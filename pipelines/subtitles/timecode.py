"""Timestamps for SRT (``00:01:02,345``), WebVTT (``00:01:02.345``) and ASS (``0:01:02.35``).

Seconds are rounded half-up on their decimal representation (``59.9995``
becomes ``00:01:00,000``, not ``00:00:59,999`` or ``00:00:60,000``) and the
carry propagates into minutes and hours. Rounding is monotonic, so a cue
that ends where the next begins still does after rounding: no overlaps
appear at any precision.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal


def ticks(seconds: float, per_second: int) -> int:
    """``seconds`` as a whole number of 1/``per_second`` units (negative clamps to 0)."""
    value = float(seconds)
    if not math.isfinite(value):
        raise ValueError(f"timestamp must be finite, got {seconds!r}")
    exact = Decimal(repr(max(value, 0.0))) * per_second
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _clock(units: int, per_second: int) -> tuple[int, int, int, int]:
    seconds, fraction = divmod(units, per_second)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return hours, minutes, seconds, fraction


def srt_time(seconds: float) -> str:
    """``HH:MM:SS,mmm`` (hours grow past two digits when needed)."""
    h, m, s, ms = _clock(ticks(seconds, 1000), 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def vtt_time(seconds: float) -> str:
    """``HH:MM:SS.mmm``."""
    h, m, s, ms = _clock(ticks(seconds, 1000), 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def ass_time(seconds: float) -> str:
    """``H:MM:SS.cc`` in centiseconds, ASS's only precision."""
    h, m, s, cs = _clock(ticks(seconds, 100), 100)
    return f"{h:d}:{m:02d}:{s:02d}.{cs:02d}"
