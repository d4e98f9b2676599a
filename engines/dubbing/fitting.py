"""Where each dubbed line goes, and how fast it is read: a pure planner, no audio.

A translated line, synthesized at its natural pace, rarely lasts exactly as
long as the original line's cue. ``plan`` places every line, in cue order,
trying these methods in turn and stopping at the first that fits:

1. **natural**: the line fits its slot as synthesized; it starts at the cue
   start at tempo 1.0 (a shorter line leaves silence after it, never before).
2. **tempo**: it is sped up to exactly fill the slot, at most ``MAX_TEMPO``.
3. **tempo+borrow**: at ``MAX_TEMPO`` it is still too long, so it takes
   silence *after* the slot (up to ``MIN_GAP_S`` before the next cue, or the
   end of the media), then silence *before* it (at most ``MAX_LEAD_S``, and
   never closer than ``MIN_GAP_S`` to the end of the previous placed line).
   Only as much as needed is taken. After comes first: a line that ends a
   little late sounds natural, one that starts before the speaker opens
   their mouth does not.
4. **truncated**: even with all borrowable silence it is too long; it keeps
   ``MAX_TEMPO`` and fills everything it may, and the rest is cut off (the
   caller fades the cut out). ``too_long`` tells the caller beforehand which
   lines to send back to the translator for a shorter version instead.

Bounds and why:

* ``MAX_TEMPO = 1.35``: time-stretching speech beyond about 1.3-1.4× is
  heard as hurried, and WSOLA artefacts (doubled or swallowed phonemes)
  become audible; dubbing tools keep within about 0.8-1.4×. Lines are never
  slowed down: a short line leaves a pause, which sounds natural, while
  slowed speech sounds drunk.
* ``MAX_LEAD_S = 0.15``: up to ~150 ms before the lips move is not noticed
  (audio-video asynchrony is detected from ~45 ms audio-*leading*, but
  tolerated up to a few frames in dubbing); more looks out of sync.
* ``MIN_GAP_S = 0.05``: two lines never run into each other; 50 ms keeps the
  boundary audible even when cues touch.
* ``REASK_RATIO = 1.5``: a line over 1.5× its slot cannot be saved by tempo
  (capped at 1.35×) and would need more borrowed silence than there usually
  is; re-translating shorter is better than reading it fast and cutting it.

Slots come from speech recognition, so cues may touch or overlap slightly: a
slot is used only up to ``MIN_GAP_S`` before the next cue's start (and up to
``media_end``), and the next line always has its cue start free. Guarantees of
``plan`` (tested over random inputs): placed lines never overlap and are
``MIN_GAP_S`` apart; each starts within ``[cue start - MAX_LEAD_S, cue
start]``; ``1 <= tempo <= MAX_TEMPO``; ``end - start == natural_s / tempo -
truncated_s``; nothing ends after ``media_end`` or starts before 0, nor
borrows silence before ``media_start`` (the start of a dubbed range).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MAX_TEMPO = 1.35
MAX_LEAD_S = 0.15
MIN_GAP_S = 0.05
REASK_RATIO = 1.5
#: ``too_long`` never asks for less than this fraction of the current length (nor more than the upper one).
MIN_REASK_FRACTION = 0.25
MAX_REASK_FRACTION = 0.95

NATURAL = "natural"
TEMPO = "tempo"
TEMPO_BORROW = "tempo+borrow"
TRUNCATED = "truncated"
_EPS = 1e-9


@dataclass(frozen=True)
class Slot:
    """The cue span of one line, seconds of media time."""

    start: float
    end: float


@dataclass(frozen=True)
class Fit:
    """Where one line is placed and how it is read.

    Attributes:
        start / end: media seconds the (sped-up, truncated) line occupies.
        tempo: speed-up factor, ``1.0 <= tempo <= MAX_TEMPO``.
        natural_s: the line's synthesized length at tempo 1.
        slot_s: the usable part of the cue: from its start to its end, cut
            ``MIN_GAP_S`` before the next cue and at the end of the media.
        borrowed_before_s / borrowed_after_s: silence taken before / after the slot.
        truncated_s: seconds of the sped-up line cut off at its end.
        method: ``natural``, ``tempo``, ``tempo+borrow`` or ``truncated`` (module docstring).
    """

    start: float
    end: float
    tempo: float
    natural_s: float
    slot_s: float
    borrowed_before_s: float
    borrowed_after_s: float
    truncated_s: float
    method: str


@dataclass(frozen=True)
class _Window:
    """The room of one line: its usable slot ``[anchor, slot_end]`` and the borrowable ``[lo, anchor]`` and ``[slot_end, hi]``."""

    lo: float
    anchor: float
    slot_end: float
    hi: float


def room(slots: Sequence[Slot], i: int, media_end: float, *, media_start: float = 0.0) -> tuple[float, float]:
    """Seconds of silence line ``i`` may borrow (before, after), with its neighbours within their cues.

    ``plan`` uses where the previous line was actually placed instead of its
    cue end, so the room before may differ there (less when that line borrowed
    after, more when it was shorter than its cue).
    """
    _check(slots, media_end, media_start)
    prev_end = slots[i - 1].end if i > 0 else -math.inf
    w = _window(slots, i, media_end, prev_end, media_start)
    return w.anchor - w.lo, w.hi - w.slot_end


def too_long(natural_s: float, slots: Sequence[Slot], i: int, media_end: float, *, media_start: float = 0.0) -> float | None:
    """None when line ``i`` fits without re-asking; else the fraction of its current length to ask for.

    A line is too long when it exceeds ``REASK_RATIO`` × its usable slot, or
    cannot fit even at ``MAX_TEMPO`` with all the silence ``room`` offers. The
    fraction aims at ``MAX_TEMPO`` × slot (tempo alone, no borrowing), clamped
    to ``[MIN_REASK_FRACTION, MAX_REASK_FRACTION]``.
    """
    _check(slots, media_end, media_start)
    prev_end = slots[i - 1].end if i > 0 else -math.inf
    w = _window(slots, i, media_end, prev_end, media_start)
    slot_s = w.slot_end - w.anchor
    capacity = MAX_TEMPO * (w.hi - w.lo)
    if natural_s <= 0 or (natural_s <= REASK_RATIO * slot_s and natural_s <= capacity + _EPS):
        return None
    return min(MAX_REASK_FRACTION, max(MIN_REASK_FRACTION, MAX_TEMPO * slot_s / natural_s))


def plan(slots: Sequence[Slot], natural: Sequence[float], media_end: float, *, media_start: float = 0.0) -> list[Fit]:
    """Place every line (module docstring): one ``Fit`` per slot, in order.

    Args:
        slots: the lines' cues, ordered by start; they may touch or overlap slightly.
        natural: each line's synthesized length at tempo 1, seconds.
        media_end: the media's duration (or the end of the dubbed range); nothing is placed after it.
        media_start: the start of the dubbed range; no silence is borrowed before it.

    Raises:
        ValueError: lengths differ, a slot ends before it starts, slots are not
            ordered by start, a slot starts outside ``[0, media_end]``, or a length is negative.
    """
    if len(slots) != len(natural):
        raise ValueError(f"{len(slots)} slots but {len(natural)} natural lengths")
    if any(not math.isfinite(n) or n < 0 for n in natural):
        raise ValueError("natural lengths must be finite and >= 0")
    _check(slots, media_end, media_start)
    fits: list[Fit] = []
    prev_end = -math.inf
    for i, n in enumerate(natural):
        fit = _place(float(n), _window(slots, i, media_end, prev_end, media_start))
        fits.append(fit)
        prev_end = max(prev_end, fit.end)
    return fits


def _place(n: float, w: _Window) -> Fit:
    """One line in its window, by the first method that fits."""
    slot_s = w.slot_end - w.anchor
    if n <= slot_s:
        return Fit(w.anchor, w.anchor + n, 1.0, n, slot_s, 0.0, 0.0, 0.0, NATURAL)
    if slot_s > 0 and n / slot_s <= MAX_TEMPO:
        tempo = max(1.0, n / slot_s)
        return Fit(w.anchor, w.slot_end, tempo, n, slot_s, 0.0, 0.0, 0.0, TEMPO)
    length = n / MAX_TEMPO
    missing = length - slot_s
    after = min(w.hi - w.slot_end, missing)
    before = min(w.anchor - w.lo, missing - after)
    truncated = max(0.0, missing - after - before)
    method = TRUNCATED if truncated > _EPS else TEMPO_BORROW
    if method == TEMPO_BORROW:
        truncated = 0.0
    start = w.anchor - before
    return Fit(start, start + length - truncated, MAX_TEMPO, n, slot_s, before, after, truncated, method)


def _window(slots: Sequence[Slot], i: int, media_end: float, prev_end: float, media_start: float) -> _Window:
    """Line ``i``'s room, given where the previous line ends.

    ``hi`` (the latest end) is ``MIN_GAP_S`` before the next cue and at most
    ``media_end``; the anchor (the start without borrowing) is the cue start,
    or ``hi`` when the next cue starts within ``MIN_GAP_S`` of this one; ``lo``
    (the earliest start) is ``MAX_LEAD_S`` before the cue start, ``MIN_GAP_S``
    after the previous line and at least ``media_start`` (and 0). Since every line ends by ``hi``,
    which is ``MIN_GAP_S`` before the next cue, ``lo <= cue start`` always.
    """
    cue = slots[i]
    hi = media_end if i + 1 == len(slots) else min(slots[i + 1].start - MIN_GAP_S, media_end)
    hi = max(hi, min(cue.start, max(media_start, 0.0)))  # cues starting together: an empty line at the cue
    anchor = min(cue.start, hi)
    lo = min(max(cue.start - MAX_LEAD_S, prev_end + MIN_GAP_S, media_start, 0.0), anchor)
    slot_end = max(anchor, min(cue.end, hi))
    return _Window(lo=lo, anchor=anchor, slot_end=slot_end, hi=hi)


def _check(slots: Sequence[Slot], media_end: float, media_start: float) -> None:
    if not math.isfinite(media_end) or media_end < 0:
        raise ValueError(f"media_end must be finite and >= 0, got {media_end}")
    if not math.isfinite(media_start) or media_start > media_end:
        raise ValueError(f"media_start must be finite and <= media_end, got {media_start}")
    previous = 0.0
    for k, s in enumerate(slots):
        if not (math.isfinite(s.start) and math.isfinite(s.end)) or s.end < s.start:
            raise ValueError(f"slot {k} is not a span: {s}")
        if s.start < previous:
            raise ValueError(f"slots must be ordered by start and start at >= 0 (slot {k}: {s})")
        if s.start > media_end:
            raise ValueError(f"slot {k} starts after the end of the media ({s.start} > {media_end})")
        previous = s.start
