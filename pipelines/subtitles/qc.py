"""Timed-text quality check (QC): every cue against a preset, the rules subtitle buyers check.

The rules are the Netflix Timed Text Style Guide's as Subtitle Edit's Netflix quality checker encodes
them (``RULE_TEXT``). Times are compared in frames, ``frame(t) = round(t * fps)``, because buyers check
frames, not milliseconds: a 2-frame gap is 83 ms at 24 fps and 67 ms at 29.97. "Half a second" is
``H`` whole frames (12 at 23.976, 24 and 25 fps, 15 at 29.97 and 30; Subtitle Edit rounds 12.5 up to 13
at 25 fps, this module keeps ``H`` within half a second). The ``legacy`` preset has no frame rules:
it is checked for everything else, overlaps included.

Durations are compared with 1.5 ms of slack, since both ends of a cue were rounded to milliseconds when
written (5/6 s is written 0.833 s), and reading speed with 0.05 characters per second.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pipelines.subtitles.presets import Preset
from pipelines.subtitles.text import char_count, join_lines
from pipelines.subtitles.timecode import ticks
from pipelines.subtitles.types import Cue

#: One-line description of each rule, in report order (docs/timed-text.md).
RULE_TEXT: dict[str, str] = {
    "line_length": "a line is longer than the preset's characters per line",
    "lines": "more lines than the preset allows (each block of a bilingual cue counted on its own)",
    "reading_speed": "more characters per second than the preset's reading speed",
    "min_duration": "on screen for less than the preset's minimum duration",
    "max_duration": "on screen for longer than the preset's maximum duration",
    "min_gap": "less than 2 frames between this cue and the next",
    "overlap": "the next cue starts before this one ends",
    "gap_not_closed": "a gap of 3 frames to half a second before the next cue, which should be closed to 2 frames",
    "single_line_fits": "two or more lines whose text fits on one line",
    "shot_change": "starts near a shot change but not on it, or ends near one but not 2 frames before it",
}
RULES: tuple[str, ...] = tuple(RULE_TEXT)

DEFAULT_FPS = 24.0
MIN_GAP_FRAMES = 2
CPS_TOLERANCE = 0.05
DURATION_TOLERANCE = 0.0015
_NTSC_BASES = (24, 30, 48, 60, 120)
_DIALOGUE_DASHES = ("-", "–", "—")


def exact_rate(fps: float) -> float:
    """The frame rate ``fps`` stands for: 23.976 is 24000/1001 and 29.97 is 30000/1001 (likewise 59.94)."""
    if not math.isfinite(fps) or fps <= 0:
        raise ValueError(f"fps must be a positive number, got {fps!r}")
    for base in _NTSC_BASES:
        ntsc = base * 1000 / 1001
        if abs(fps - ntsc) < 0.01:
            return ntsc
    return float(fps)


def frame(seconds: float, rate: float) -> int:
    """The frame a time falls on (nearest frame; a time halfway between two goes to the later)."""
    return math.floor(seconds * rate + 0.5)


def half_second(rate: float) -> int:
    """``H``: half a second in whole frames, a tie rounded down (25 fps: 12)."""
    return math.ceil(rate / 2 - 0.5)


@dataclass(frozen=True)
class CueCheck:
    """One cue's result: its times, the lines checked, its reading speed and the rules it breaks (``RULES`` order)."""

    index: int
    start: float
    end: float
    lines: tuple[str, ...]
    chars: float
    cps: float
    rules: tuple[str, ...]

    def record(self) -> dict[str, object]:
        return {
            "index": self.index,
            "start": round(self.start, 3),
            "end": round(self.end, 3),
            "lines": list(self.lines),
            "cps": round(self.cps, 1) if math.isfinite(self.cps) else None,
            "rules": list(self.rules),
        }


@dataclass(frozen=True)
class QcReport:
    """The check of one subtitle track: the preset and frame rate it was checked against, and every cue."""

    preset: Preset
    fps: float
    cues: tuple[CueCheck, ...]

    def counts(self) -> dict[str, int]:
        """Cues breaking each rule, every rule listed."""
        counts = dict.fromkeys(RULES, 0)
        for cue in self.cues:
            for rule in cue.rules:
                counts[rule] += 1
        return counts

    def failing(self) -> int:
        """Cues breaking at least one rule."""
        return sum(1 for cue in self.cues if cue.rules)

    def share(self) -> float:
        """The share of cues breaking at least one rule (0.0 for no cues)."""
        return self.failing() / len(self.cues) if self.cues else 0.0

    def summary(self) -> dict[str, object]:
        return {
            "preset": self.preset.public(),
            "fps": round(self.fps, 3),
            "cues": len(self.cues),
            "failing": self.failing(),
            "failing_share": round(self.share(), 4),
            "rules": self.counts(),
        }

    def cue_records(self) -> list[dict[str, object]]:
        return [cue.record() for cue in self.cues]


def check_cues(
    cues: Sequence[Cue],
    preset: Preset,
    fps: float = DEFAULT_FPS,
    shot_changes: Sequence[float] = (),
) -> QcReport:
    """Check ``cues`` (any order; those without text are skipped) against ``preset`` at ``fps``.

    ``shot_changes`` are the times (seconds) of the video's cuts; without them ``shot_change`` is not checked.
    """
    rate = exact_rate(fps)
    shown = sorted((cue for cue in cues if cue.lines or cue.original_lines), key=lambda cue: (cue.start, cue.end))
    cuts = sorted({frame(t, rate) for t in shot_changes}) if preset.frame_rules else []
    checks = []
    for n, cue in enumerate(shown):
        following = shown[n + 1] if n + 1 < len(shown) else None
        checks.append(_check(cue, following, preset, rate, cuts))
    return QcReport(preset=preset, fps=fps, cues=tuple(checks))


def reading_speed(chars: float, duration: float) -> float:
    """Characters per second; infinite for text shown no time, 0 for no text."""
    return chars / duration if duration > 0 else (math.inf if chars else 0.0)


def _check(cue: Cue, following: Cue | None, preset: Preset, rate: float, cuts: list[int]) -> CueCheck:
    lines = cue.lines or cue.original_lines
    chars = sum(char_count(line, preset.half_width) for line in lines)
    duration = cue.end - cue.start
    cps = reading_speed(chars, duration)
    broken = _text_rules(cue, lines, preset) | _duration_rules(duration, cps, preset)
    if following is not None:
        broken |= _gap_rules(cue, following, rate, preset.frame_rules)
    if cuts and _near_cut(cue, rate, cuts):
        broken.add("shot_change")
    rules = tuple(rule for rule in RULES if rule in broken)
    return CueCheck(index=cue.index, start=cue.start, end=cue.end, lines=lines, chars=chars, cps=cps, rules=rules)


def _text_rules(cue: Cue, lines: tuple[str, ...], preset: Preset) -> set[str]:
    broken = set()
    if any(char_count(line, preset.half_width) > preset.max_chars for line in lines):
        broken.add("line_length")
    if max(len(cue.lines), len(cue.original_lines)) > preset.max_lines:
        broken.add("lines")
    if len(lines) >= 2 and not _is_dialogue(lines) and char_count(join_lines(lines), preset.half_width) <= preset.max_chars:
        broken.add("single_line_fits")
    return broken


def _is_dialogue(lines: tuple[str, ...]) -> bool:
    """Two speakers, one a line, each line opened by a dash: the lines must stay apart."""
    return any(line.lstrip().startswith(_DIALOGUE_DASHES) for line in lines[1:])


def _duration_rules(duration: float, cps: float, preset: Preset) -> set[str]:
    broken = set()
    if cps > preset.max_cps + CPS_TOLERANCE:
        broken.add("reading_speed")
    if duration < preset.min_duration - DURATION_TOLERANCE:
        broken.add("min_duration")
    if duration > preset.max_duration + DURATION_TOLERANCE:
        broken.add("max_duration")
    return broken


def _gap_rules(cue: Cue, following: Cue, rate: float, frame_rules: bool) -> set[str]:
    # Overlap is decided on the milliseconds a file holds, so it holds without frame rules too.
    if ticks(following.start, 1000) < ticks(cue.end, 1000):
        return {"overlap"}
    if not frame_rules:
        return set()
    gap = frame(following.start, rate) - frame(cue.end, rate)
    if gap < MIN_GAP_FRAMES:
        return {"min_gap"}
    if MIN_GAP_FRAMES < gap <= half_second(rate):
        return {"gap_not_closed"}
    return set()


def _near_cut(cue: Cue, rate: float, cuts: list[int]) -> bool:
    """The in-time is near a cut but not on it, or the out-time near one but not 2 frames before it."""
    half = half_second(rate)
    start, end = frame(cue.start, rate), frame(cue.end, rate)
    if any(0 < abs(start - cut) < half for cut in _cuts_within(cuts, start, half)):
        return True
    return any(end != cut - MIN_GAP_FRAMES for cut in _cuts_within(cuts, end, half))


def _cuts_within(cuts: list[int], at: int, half: int) -> list[int]:
    """The cuts ``c`` with ``at - half < c < at + half``."""
    return cuts[bisect.bisect_right(cuts, at - half) : bisect.bisect_left(cuts, at + half)]
