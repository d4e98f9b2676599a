"""Speech recognition results shared by every ASR engine and by the pipelines.

Times are seconds on the timeline of the whole media file: an engine adds the
``offset`` it was given (the start of a chunk) to every timestamp it returns.
``pipelines`` imports these types from here; ``deployments`` never imports
``pipelines``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Word:
    """One recognised word.

    Attributes:
        start: start time in seconds.
        end: end time in seconds (``>= start``).
        text: the word as decoded, usually with its leading space.
        probability: the decoder's confidence, 0..1.
        speaker: speaker label set by diarisation, None before.
    """

    start: float
    end: float
    text: str
    probability: float = 1.0
    speaker: str | None = None

    @property
    def midpoint(self) -> float:
        return (self.start + self.end) / 2


@dataclass(frozen=True)
class Segment:
    """A decoded phrase: the unit Whisper emits, usually a sentence or part of one.

    Attributes:
        start: start time in seconds.
        end: end time in seconds.
        text: the phrase text.
        words: the phrase's words; empty when word timestamps are off.
        speaker: speaker label set by diarisation, None before.
    """

    start: float
    end: float
    text: str
    words: tuple[Word, ...] = ()
    speaker: str | None = None

    @property
    def midpoint(self) -> float:
        return (self.start + self.end) / 2


@dataclass(frozen=True)
class Transcript:
    """What an engine heard in one piece of audio.

    Attributes:
        language: API language code (ISO 639-1) of the speech.
        language_probability: confidence of ``language``; 1.0 when it was given.
        duration: length of the transcribed audio in seconds.
        segments: the phrases, in time order.
        offset: seconds added to every timestamp (the chunk's start); the
            audio covered is ``[offset, offset + duration]``.
        engine: name of the engine that produced it.
        options: the engine's options object, echoed as used.
    """

    language: str
    language_probability: float
    duration: float
    segments: tuple[Segment, ...]
    offset: float = 0.0
    engine: str = ""
    options: Any = None

    @property
    def end(self) -> float:
        """End of the covered audio on the whole-file timeline."""
        return self.offset + self.duration

    @property
    def words(self) -> tuple[Word, ...]:
        """Every word of every segment, in order."""
        return tuple(word for segment in self.segments for word in segment.words)

    @property
    def text(self) -> str:
        """The segment texts joined with single spaces."""
        return " ".join(segment.text.strip() for segment in self.segments).strip()
