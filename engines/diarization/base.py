"""Diarization results and the engine interface every diarizer implements.

A diarizer answers *who speaks when*: it splits a recording into speaker turns
and describes each speaker it found. Times are seconds on the timeline of the
whole media file: an engine adds the ``offset`` it was given to every time it
returns. Speaker ids are ``"S1"``, ``"S2"``, … numbered by first appearance,
whatever engine produced them, so downstream code (speaker labels on words,
dubbing voice matching) never depends on the engine.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from engines.base import Engine
from engines.errors import InvalidInput

#: Rate of the audio every diarizer takes.
DIARIZATION_RATE = 16_000
#: How far (seconds) ``speaker_at`` looks for a turn when none overlaps the span.
NEAREST_TURN_S = 1.0

ProgressCallback = Callable[[float], None]


@dataclass(frozen=True)
class SpeakerTurn:
    """A stretch of speech by one speaker.

    Attributes:
        start: start time in seconds on the media timeline.
        end: end time in seconds (``> start``).
        speaker: ``"S1"``, ``"S2"``, … numbered by first appearance.
    """

    start: float
    end: float
    speaker: str


@dataclass(frozen=True)
class SpeakerProfile:
    """One speaker found in the audio.

    Attributes:
        speaker: the id used in the turns.
        seconds: total length of the speaker's turns.
        gender: ``"male"`` or ``"female"`` (perceived, from pitch).
        gender_confidence: 0.5 (undecided, also when the speech had too little pitch) to 1.
        embedding: the speaker's mean unit VoiceFilter d-vector (256 floats, unit norm).
    """

    speaker: str
    seconds: float
    gender: str
    gender_confidence: float
    embedding: tuple[float, ...]


@dataclass(frozen=True)
class Diarization:
    """Who speaks when in one piece of audio.

    Attributes:
        turns: disjoint speaker turns in time order; empty when there is no speech.
        speakers: one profile per speaker id in the turns, in id order.
        engine: name of the engine that produced it.
    """

    turns: tuple[SpeakerTurn, ...]
    speakers: tuple[SpeakerProfile, ...]
    engine: str = ""

    @property
    def speaker_count(self) -> int:
        return len(self.speakers)

    def speaker_at(self, start: float, end: float) -> str | None:
        """The speaker of ``[start, end]``: most overlap, else the nearest turn within 1 s, else None."""
        overlap: dict[str, float] = {}
        for turn in self.turns:
            shared = min(end, turn.end) - max(start, turn.start)
            if shared > 0:
                overlap[turn.speaker] = overlap.get(turn.speaker, 0.0) + shared
        if overlap:
            return max(overlap, key=lambda speaker: overlap[speaker])
        best: tuple[float, str] | None = None
        for turn in self.turns:
            gap = max(turn.start - end, start - turn.end, 0.0)
            if gap <= NEAREST_TURN_S and (best is None or gap < best[0]):
                best = (gap, turn.speaker)
        return best[1] if best else None


class DiarizationEngine(Engine):
    """An engine that splits 16 kHz mono audio into speaker turns."""

    @abc.abstractmethod
    def diarize(
        self,
        audio: np.ndarray,
        *,
        num_speakers: int | None = None,
        offset: float = 0.0,
        on_progress: ProgressCallback | None = None,
    ) -> Diarization:
        """Who speaks when in ``audio``.

        Args:
            audio: float32 mono samples at 16 kHz.
            num_speakers: the known number of speakers; None to estimate it.
            offset: seconds added to every time in the result (the audio's start on the media timeline).
            on_progress: called with the fraction done (0..1) while working, from the calling thread.

        Returns:
            The turns and speaker profiles; no turns (not an error) for empty or speechless audio.

        Raises:
            InvalidInput: ``num_speakers`` under 1, or audio that is not 1-D finite samples.
            EngineUnavailable: the engine was not started.
        """


def check_request(audio: np.ndarray, num_speakers: int | None) -> np.ndarray:
    """``audio`` as contiguous 1-D float32, after checking it and ``num_speakers``.

    Raises:
        InvalidInput: ``num_speakers`` under 1 (or not an integer), or audio that is not 1-D or not finite.
    """
    if num_speakers is not None and (
        isinstance(num_speakers, bool) or not isinstance(num_speakers, Integral) or num_speakers < 1
    ):
        raise InvalidInput(f"num_speakers must be a positive integer, got {num_speakers!r}")
    samples = np.ascontiguousarray(audio, dtype=np.float32)
    if samples.ndim != 1:
        raise InvalidInput(f"expected mono audio (1-D samples), got shape {samples.shape}")
    if not np.all(np.isfinite(samples)):
        raise InvalidInput("audio contains NaN or infinite samples")
    return samples


def renumber(labels: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Map raw speaker labels, listed in time order, to ``S1``, ``S2``, … by first appearance."""
    mapping: dict[str, str] = {}
    for label in labels:
        if label not in mapping:
            mapping[label] = f"S{len(mapping) + 1}"
    return mapping
