"""Layout options shared by segmentation of speech and re-wrapping of translations."""

from __future__ import annotations

from dataclasses import dataclass

from core.specs.video import CUE_SECONDS_RANGE, DEFAULT_CUE_SECONDS, DEFAULT_MAX_LINE_CHARS, LINE_CHARS_RANGE
from pipelines.subtitles.text import char_count, display_length, half_units

MIN_MAX_DURATION, MAX_MAX_DURATION = CUE_SECONDS_RANGE
MIN_LINE_CHARS = LINE_CHARS_RANGE[0]


@dataclass(frozen=True)
class SegmentationOptions:
    """Rules for cutting timed words into subtitle cues.

    Attributes:
        max_chars: Maximum characters per line (API ``max_subtitle_length``,
            default 42, at least 10). Characters are counted as
            ``text.display_length`` counts them: combining marks are free, a
            CJK character counts one.
        max_lines: Lines per cue, 1 or 2. In bilingual output the limit
            applies to each language's block separately.
        max_duration: Longest cue in seconds (API ``subtitle_max_duration``,
            2.0 to 10.0, default 5.0). Never exceeded.
        min_duration: Shortest cue the timing pass aims for, in seconds. A
            shorter cue is extended into the silence after it, then before
            it; when the neighbouring cues leave no room it stays short
            rather than overlap them.
        max_cps: Reading-speed cap in characters per second (17 to 21 is the
            usual range for adult viewers). Cues read faster are extended
            into surrounding silence like short ones; fast speech with no
            pauses cannot be slowed down, so the cap is a target, not a
            guarantee.
        pause: Silence between words, in seconds, that counts as a natural
            place to end a cue.
        speaker_labels: Prefix ``[Speaker N] `` to the first cue of each
            speaker turn and never let a cue span two speakers (API
            ``enable_diarization``). Speakers are numbered by first
            appearance. Where ``[Speaker N]`` is wider than ``max_chars``
            the short form ``[SN]`` is used.
        half_width: Measure lines in half-width units (Japanese: a
            full-width character is 2, any other 1); ``max_chars`` is then
            in those units too (13 full-width characters = 26).
        language: Language of the text laid out: picks the line-break
            word lists (``linebreaks.py``); None: language-independent rules.
        fps: Frame rate of frame-accurate timing (``frames.py``: 2-frame
            gaps, chaining, shot changes, half-second lingering). None: the
            seconds-based timing of ``timing.py`` (the ``legacy`` preset).
        shot_changes: Times of the video's shot changes, in seconds, that
            frame-accurate timing snaps in- and out-times to.
        until: End of the processed media, seconds: no cue lingers past it.
    """

    max_chars: int = DEFAULT_MAX_LINE_CHARS
    max_lines: int = 2
    max_duration: float = DEFAULT_CUE_SECONDS
    min_duration: float = 0.7
    max_cps: float = 20.0
    pause: float = 0.5
    speaker_labels: bool = False
    half_width: bool = False
    language: str | None = None
    fps: float | None = None
    shot_changes: tuple[float, ...] = ()
    until: float | None = None

    def measure(self, text: str) -> int:
        """Width of ``text`` in the units of ``max_chars``."""
        return half_units(text) if self.half_width else display_length(text)

    def chars(self, text: str) -> float:
        """Characters of ``text`` as reading speed counts them (half-width 0.5 where ``half_width``)."""
        return char_count(text, self.half_width)

    def __post_init__(self) -> None:
        if not isinstance(self.max_chars, int) or self.max_chars < MIN_LINE_CHARS:
            raise ValueError(f"max_chars must be an integer >= {MIN_LINE_CHARS}, got {self.max_chars!r}")
        if self.max_lines not in (1, 2):
            raise ValueError(f"max_lines must be 1 or 2, got {self.max_lines!r}")
        if not MIN_MAX_DURATION <= self.max_duration <= MAX_MAX_DURATION:
            raise ValueError(
                f"max_duration must be between {MIN_MAX_DURATION} and {MAX_MAX_DURATION} seconds, got {self.max_duration!r}"
            )
        if not 0.0 <= self.min_duration <= self.max_duration:
            raise ValueError(f"min_duration must be between 0 and max_duration, got {self.min_duration!r}")
        if self.max_cps <= 0:
            raise ValueError(f"max_cps must be positive, got {self.max_cps!r}")
        if self.pause < 0:
            raise ValueError(f"pause must be >= 0, got {self.pause!r}")
        if self.fps is not None and not 1.0 <= self.fps <= 300.0:
            raise ValueError(f"fps must be between 1 and 300, got {self.fps!r}")
