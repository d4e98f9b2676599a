"""Dubbing lines from translated sentence groups, and speaker names as the subtitles number them."""

from __future__ import annotations

import numpy as np
import pytest

from engines.asr.types import Segment, Transcript, Word
from pipelines.dubbing.dubber import trim_silence
from pipelines.dubbing.lines import display_names, dub_lines
from pipelines.subtitles import SegmentationOptions, segment_segments
from pipelines.subtitles.translation import group_sentences


def _transcript() -> Transcript:
    words = [
        Word(0.5, 0.9, " Hello", speaker="S2"),
        Word(0.9, 1.3, " there.", speaker="S2"),
        Word(2.0, 2.4, " Who", speaker="S1"),
        Word(2.4, 2.8, " are", speaker="S1"),
        Word(2.8, 3.2, " you?", speaker="S1"),
        Word(4.0, 4.5, " Damn", speaker="S2"),
        Word(4.5, 5.0, " it.", speaker="S2"),
    ]
    segments = (Segment(0.5, 3.2, "Hello there. Who are you?", tuple(words[:5])), Segment(4.0, 5.0, "Damn it.", tuple(words[5:])))
    return Transcript("en", 1.0, 6.0, segments)


def test_lines_follow_groups_speakers_and_times() -> None:
    transcript = _transcript()
    cues = segment_segments(transcript.segments, SegmentationOptions(speaker_labels=True))
    groups = group_sentences(cues)
    names = display_names(transcript)
    assert names == {"S2": "Speaker 1", "S1": "Speaker 2"}  # numbered by first word, as the subtitles are
    lines = dub_lines(groups, ["Hola.", "¿Quién eres?", "*** sea."], ["Hello there.", "Who are you?", "Damn it."])
    assert [line.speaker for line in lines] == ["Speaker 1", "Speaker 2", "Speaker 1"]
    assert [line.text for line in lines] == ["Hola.", "¿Quién eres?", "sea."]  # a masked word is left unsaid
    for line, group in zip(lines, groups):
        assert line.start == group[0].start and line.end == group[-1].end
    assert lines[0].start <= 0.5 < lines[1].start < lines[2].start
    with pytest.raises(ValueError):
        dub_lines(groups, ["only one"], ["x"])
    assert dub_lines(groups[:1], ["   "], ["Hello there."]) == []


def test_trim_silence_keeps_the_speech() -> None:
    rate = 24_000
    speech = np.sin(np.linspace(0, 2000, rate)).astype(np.float32) * 0.5
    padded = np.concatenate([np.zeros(rate // 2, np.float32), speech, np.zeros(rate, np.float32)])
    trimmed = trim_silence(padded, rate)
    assert abs(len(trimmed) - len(speech)) <= 0.08 * rate  # 30 ms kept on each side, 10 ms frames
    assert trim_silence(np.zeros(100, np.float32), rate).size == 100  # silence only: unchanged
