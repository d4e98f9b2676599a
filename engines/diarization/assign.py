"""Speaker labels on a transcript's words and segments, from a diarization.

Each word takes the speaker of the turn it overlaps most
(:meth:`Diarization.speaker_at`): a word in a pause, with no overlapping turn,
takes the nearest turn within 1 s, and failing that the previous word's
speaker (the first words of a transcript stay None until a word gets one).
Each segment takes the speaker most of its words have (ties: the speaker who
holds more of the segment's word time), or, without words, the speaker of its
own span. Everything else is kept; the result is a new ``Transcript``.
"""

from __future__ import annotations

from dataclasses import replace

from engines.asr.types import Segment, Transcript, Word
from engines.diarization.base import Diarization


def assign_speakers(transcript: Transcript, diarization: Diarization) -> Transcript:
    """``transcript`` with ``speaker`` set on every word and segment from ``diarization``.

    With no turns in the diarization every speaker is None.
    """
    previous: str | None = None
    segments: list[Segment] = []
    for segment in transcript.segments:
        words: list[Word] = []
        for word in segment.words:
            speaker = diarization.speaker_at(word.start, word.end) or previous
            words.append(replace(word, speaker=speaker))
            previous = speaker
        speaker = _majority(words) if words else diarization.speaker_at(segment.start, segment.end)
        segments.append(replace(segment, words=tuple(words), speaker=speaker))
    return replace(transcript, segments=tuple(segments))


def _majority(words: list[Word]) -> str | None:
    """The speaker of most words; ties go to the one with more word time, then to the earliest."""
    counts: dict[str, tuple[int, float]] = {}
    for word in words:
        if word.speaker is not None:
            count, seconds = counts.get(word.speaker, (0, 0.0))
            counts[word.speaker] = (count + 1, seconds + max(0.0, word.end - word.start))
    if not counts:
        return None
    return max(counts, key=lambda speaker: counts[speaker])
