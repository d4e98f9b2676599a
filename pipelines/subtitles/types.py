"""Values passed between speech recognition, segmentation and the writers.

``Word`` and ``Segment`` mirror ``engines.asr.types`` field for
field, so the segmenter accepts either: it only reads ``start``, ``end``,
``text``, ``speaker`` (and ``words`` on segments). Times are seconds on the
timeline of the whole media file.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Word:
    """One recognised word with its timing.

    Attributes:
        start: Start time in seconds.
        end: End time in seconds (``>= start``; the segmenter repairs it if not).
        text: The word as decoded. A leading space (Whisper style) marks a
            word boundary; CJK and Thai words come without one.
        probability: Decoder confidence 0..1, or None when the engine has none.
        speaker: Diarisation speaker id (any string, e.g. ``SPEAKER_00``), or
            None when diarisation is off or undecided.
    """

    start: float
    end: float
    text: str
    probability: float | None = None
    speaker: str | None = None


@dataclass(frozen=True)
class Segment:
    """A decoded phrase: what Whisper emits, usually a sentence or part of one.

    Attributes:
        start: Start time in seconds.
        end: End time in seconds.
        text: The phrase text; used only when ``words`` is empty.
        words: The phrase's words; empty when word timestamps were off, in
            which case timings are spread over ``text`` by character count.
        speaker: Speaker id for words that carry none.
    """

    start: float
    end: float
    text: str
    words: tuple[Word, ...] = ()
    speaker: str | None = None


@dataclass(frozen=True)
class Cue:
    """One subtitle as shown on screen.

    Attributes:
        index: 1-based position in the subtitle file. Writers number cues by
            position, so this is informative only.
        start: Display start in seconds.
        end: Display end in seconds (``>= start``, ``<=`` the next cue's start).
        lines: The displayed lines (the translation when translated). When
            ``label`` is set, ``lines[0]`` starts with it.
        original_lines: Source-language lines shown with ``lines`` in bilingual
            output; empty otherwise.
        speaker: Display name of the cue's speaker (``Speaker 2``) when
            diarisation labels are on, else None. Set on every cue.
        label: The speaker prefix shown at the start of this cue
            (``[Speaker 2]``), only on the first cue of a speaker turn; ``""``
            elsewhere. Kept apart so the prefix is not sent to translation.
    """

    index: int
    start: float
    end: float
    lines: tuple[str, ...]
    original_lines: tuple[str, ...] = ()
    speaker: str | None = None
    label: str = ""

    @property
    def duration(self) -> float:
        return self.end - self.start

    @property
    def text(self) -> str:
        """The displayed lines joined with newlines."""
        return "\n".join(self.lines)

    def blocks(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(original lines, lines) as every writer shows them: whitespace runs collapsed, blank lines dropped."""
        return _shown_lines(self.original_lines), _shown_lines(self.lines)


def _shown_lines(lines: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(line for line in (" ".join(raw.split()) for raw in lines) if line)
