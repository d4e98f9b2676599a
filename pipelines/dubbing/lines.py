"""Dubbing lines: one per translated sentence group, timed by its cues, spoken by its speaker.

A line is the unit that is synthesized, fitted and placed: the translation of
one sentence group (``pipelines.subtitles.group_sentences``), whose slot runs
from the first cue's start to the last cue's end. Groups never span two
speakers, so each line has one voice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from engines.asr.types import Transcript
from pipelines.subtitles import Cue
from pipelines.subtitles.profanity import MASK


@dataclasses.dataclass(frozen=True)
class DubLine:
    """One line to dub.

    Attributes:
        index: 0-based position in the video.
        start / end: the slot, seconds on the media timeline (the cues' span).
        text: the translation to speak.
        source: the recognised sentence it translates (asked again when the line must be shorter).
        speaker: the speaker's display name (``Speaker 2``) with diarization, else None.
    """

    index: int
    start: float
    end: float
    text: str
    source: str
    speaker: str | None = None


def dub_lines(groups: Sequence[Sequence[Cue]], translations: Sequence[str], sources: Sequence[str]) -> list[DubLine]:
    """A line per sentence group with something to say, in time order."""
    if not len(groups) == len(translations) == len(sources):
        raise ValueError("groups, translations and sources differ in length")
    lines: list[DubLine] = []
    for cues, text, source in zip(groups, translations, sources):
        spoken = " ".join(text.replace(MASK, " ").split())  # a masked word (profanity_filter) is left unsaid
        if not cues or not spoken:
            continue
        lines.append(DubLine(len(lines), cues[0].start, cues[-1].end, spoken, source, cues[0].speaker))
    return lines


def display_names(transcript: Transcript) -> dict[str, str]:
    """Diarization speaker id → the subtitle label's name (``Speaker N`` by first word spoken).

    The same numbering as the subtitles (``pipelines.subtitles.segment``), so the voice chosen for
    ``S2`` is the voice of the cues labelled with its name.
    """
    names: dict[str, str] = {}
    words = sorted((w for s in transcript.segments for w in s.words or ()), key=lambda w: w.start)
    for word in words:
        if word.speaker is not None and word.speaker not in names:
            names[word.speaker] = f"Speaker {len(names) + 1}"
    for segment in transcript.segments:  # segments without word timestamps
        if segment.speaker is not None and segment.speaker not in names:
            names[segment.speaker] = f"Speaker {len(names) + 1}"
    return names
