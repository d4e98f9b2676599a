"""Frame-accurate display timing: the timing rules of the ``standard`` and ``broadcast`` presets.

Cues arrive timed to their speech (first and last word); this pass decides when each is shown, on the
frames of the video (``SegmentationOptions.fps``; 24 when there is no video), following the Netflix
Timed Text Style Guide's timing rules (docs/timed-text.md). ``H`` is half a second in frames (12 at
24 fps, 15 at 29.97):

* **In-time** on the first frame of speech. Near a shot change: speech starting 1-7 frames before the
  cut starts at the cut; 8-11 frames before, H frames before it (clear of the cut); less than H frames
  after the cut, at the cut. A move earlier never ends the previous cue more than ``SPEECH_TOLERANCE``
  frames before its speech does.
* **Out-time** at the end of speech, lingering up to H frames past it while the reading speed needs
  the time, and at least ``min_duration`` after the in-time; never more than ``max_duration``.
* **Gaps**: at least 2 frames between cues; a gap of H frames or less is closed to exactly 2 frames
  (chaining).
* **Out-time near a shot change**: less than H frames before the cut, it moves to 2 frames before the
  cut; less than H frames after the cut, back to 2 frames before it when the speech has ended by the
  cut (lingering alone never carries a cue across a cut), else on to H frames after it. A cue whose
  speech crosses the cut may cross it.
* A cue that would still be shorter than ``min_duration`` (speech with no pause after it) may delay
  the next in-time by up to ``MAX_LAG`` frames (within the 1-3 frames of speech QC accepts).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.qc import DEFAULT_FPS, exact_rate, frame, half_second
from pipelines.subtitles.types import Cue

GAP_FRAMES = 2
#: In-times up to this many frames before a cut start at the cut.
SNAP_TO_CUT = 7
#: How far a short cue may push the next in-time past its speech, in frames.
MAX_LAG = 3
#: How far before the end of its speech a cue may end when the next in-time snaps back to a cut, in frames
#: (QC accepts times within a few frames of speech).
SPEECH_TOLERANCE = 3
_NO_BOUND = 1 << 40


@dataclass(frozen=True)
class Grid:
    """Frames of one frame rate: ``frame(t)`` and back, half a second, the duration limits.

    Frames are counted as the quality check counts them (``qc.frame``, ``qc.half_second``), at the exact
    rate a nominal one stands for (23.976 is 24000/1001).
    """

    nominal: float

    @property
    def fps(self) -> float:
        return exact_rate(self.nominal)

    def frame(self, seconds: float) -> int:
        return frame(seconds, self.fps)

    def time(self, frame: int) -> float:
        return frame / self.fps

    @property
    def half(self) -> int:
        return half_second(self.fps)

    def at_least(self, seconds: float) -> int:
        """Fewest whole frames lasting ``seconds`` (5/6 s → 20 at 24 fps, 21 at 25 fps)."""
        return math.ceil(seconds * self.fps - 1e-6)

    def at_most(self, seconds: float) -> int:
        return math.floor(seconds * self.fps + 1e-6)


def retime(cues: Sequence[Cue], options: SegmentationOptions) -> list[Cue]:
    """Display times of speech-timed ``cues`` (in time order) under the frame rules; text unchanged.

    No cue ends after ``options.until`` (the end of the processed media).
    """
    if not cues:
        return []
    grid = Grid(options.fps or DEFAULT_FPS)
    speech = []
    for cue in cues:
        start = grid.frame(cue.start)
        speech.append((start, max(grid.frame(cue.end), start + 1)))
    cuts = sorted({grid.frame(t) for t in options.shot_changes if t > 0})
    limit = grid.frame(options.until) if options.until else None
    ins = _in_times(speech, cuts, grid)
    goals = [_goal(cue, options, grid) for cue in cues]
    times = _out_times(speech, ins, goals, cuts, grid, options, limit)
    return [replace(cue, start=grid.time(s), end=grid.time(e)) for cue, (s, e) in zip(cues, times)]


def _goal(cue: Cue, options: SegmentationOptions, grid: Grid) -> int:
    """Frames the cue needs to be read at the preset's speed."""
    chars = sum(options.chars(line) for line in cue.lines)
    return grid.at_least(chars / options.max_cps) if options.max_cps > 0 else 0


def _nearest(cuts: Sequence[int], frame: int) -> int | None:
    """The cut closest to ``frame``, or None."""
    k = bisect.bisect_left(cuts, frame)
    near = [cuts[i] for i in (k - 1, k) if 0 <= i < len(cuts)]
    return min(near, key=lambda c: abs(c - frame)) if near else None


def _in_times(speech: Sequence[tuple[int, int]], cuts: Sequence[int], grid: Grid) -> list[int]:
    """Each cue's in-time: its speech start, snapped to a nearby cut when the rules say so."""
    out = []
    for k, (start, _) in enumerate(speech):
        floor = speech[k - 1][1] + GAP_FRAMES - SPEECH_TOLERANCE if k else 0
        target = start
        cut = _nearest(cuts, start)
        if cut is not None and cut != start:
            before = cut - start
            if 0 < before <= SNAP_TO_CUT:
                target = cut
            elif SNAP_TO_CUT < before < grid.half:
                target = cut - grid.half
            elif -grid.half < before < 0:
                target = cut
        out.append(target if target >= floor else start)
    return out


def _out_times(
    speech: Sequence[tuple[int, int]],
    ins: Sequence[int],
    goals: Sequence[int],
    cuts: Sequence[int],
    grid: Grid,
    options: SegmentationOptions,
    limit: int | None,
) -> list[tuple[int, int]]:
    shortest, longest = grid.at_least(options.min_duration), grid.at_most(options.max_duration)
    out: list[tuple[int, int]] = []
    for k, (spoken_start, spoken_end) in enumerate(speech):
        start = ins[k]
        if out:
            start = max(start, out[-1][1] + GAP_FRAMES)
            if start != ins[k] and ins[k] < spoken_start:
                start = max(spoken_start, out[-1][1] + GAP_FRAMES)
        following = ins[k + 1] if k + 1 < len(speech) else None
        bound = following - GAP_FRAMES if following is not None else (limit if limit is not None else _NO_BOUND)
        ceiling = min(start + longest, bound)
        end = max(spoken_end, min(start + goals[k], spoken_end + grid.half), start + shortest)
        end = min(end, ceiling)
        if end - start < shortest and following is not None:
            end = min(start + shortest, bound + MAX_LAG, start + longest)
        if following is not None and bound - end <= grid.half - GAP_FRAMES and bound <= start + longest:
            end = max(end, bound)  # chaining: a gap of half a second or less closes to 2 frames
        end = _snap_out(end, start, spoken_end, cuts, grid, shortest, min(ceiling, start + longest))
        out.append((start, max(end, start + 1)))
    return out


def _snap_out(end: int, start: int, spoken_end: int, cuts: Sequence[int], grid: Grid, shortest: int, ceiling: int) -> int:
    """The out-time moved off a nearby cut: 2 frames before it, or half a second after it."""
    cut = _nearest(cuts, end)
    if cut is None or cut <= start or abs(end - cut) >= grid.half:
        return end
    before = cut - GAP_FRAMES
    after = cut + grid.half
    can_pull = before - start >= shortest and spoken_end <= cut
    if end < cut:
        if end <= before and before <= ceiling:
            return before
        return before if can_pull else end
    if can_pull:
        return before  # the speech ended by the cut: only lingering carried the cue across it
    if after <= ceiling:
        return after
    return end
