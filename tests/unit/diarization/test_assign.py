"""Speaker labels on transcript words and segments from a diarization."""

from __future__ import annotations

import pytest

from engines.asr.types import Segment, Transcript, Word
from engines.diarization.assign import assign_speakers
from engines.diarization.base import Diarization, SpeakerTurn

TURNS = (SpeakerTurn(0.0, 3.0, "S1"), SpeakerTurn(3.0, 6.0, "S2"), SpeakerTurn(8.0, 10.0, "S1"))


def diarization(turns: tuple[SpeakerTurn, ...] = TURNS) -> Diarization:
    return Diarization(turns=turns, speakers=(), engine="test")


def transcript(*segments: Segment) -> Transcript:
    return Transcript(language="en", language_probability=1.0, duration=12.0, segments=segments, engine="whisper")


def words(*spans: tuple[float, float]) -> tuple[Word, ...]:
    return tuple(Word(start, end, f" w{i}") for i, (start, end) in enumerate(spans))


def test_each_word_takes_the_turn_it_overlaps_most() -> None:
    seg = Segment(0.0, 6.0, "…", words((0.2, 0.6), (2.7, 3.4), (2.8, 3.1), (5.0, 5.5)))
    out = assign_speakers(transcript(seg), diarization())
    assert [w.speaker for w in out.segments[0].words] == ["S1", "S2", "S1", "S2"]


def test_word_in_a_pause_takes_the_nearest_turn_within_a_second_else_the_previous_word() -> None:
    seg = Segment(5.0, 12.0, "…", words((5.5, 5.9), (7.2, 7.5), (6.3, 6.5), (11.5, 11.8)))
    out = assign_speakers(transcript(seg), diarization())
    assert [w.speaker for w in out.segments[0].words] == ["S2", "S1", "S2", "S2"]


def test_segment_speaker_is_the_majority_of_its_words() -> None:
    first = Segment(0.0, 4.0, "…", words((0.1, 0.5), (0.6, 1.0), (3.1, 3.9)))
    second = Segment(3.0, 6.0, "…", words((3.2, 3.5), (4.0, 4.4), (2.0, 2.5)))
    out = assign_speakers(transcript(first, second), diarization())
    assert [s.speaker for s in out.segments] == ["S1", "S2"]


def test_segment_without_words_takes_the_speaker_of_its_span() -> None:
    out = assign_speakers(transcript(Segment(2.5, 5.5, "no words"), Segment(20.0, 21.0, "far away")), diarization())
    assert [s.speaker for s in out.segments] == ["S2", None]


def test_no_turns_leaves_every_speaker_none() -> None:
    seg = Segment(0.0, 6.0, "…", words((0.2, 0.6), (2.7, 3.4)))
    out = assign_speakers(transcript(seg), diarization(()))
    assert out.segments[0].speaker is None
    assert all(w.speaker is None for w in out.words)


def test_everything_but_the_speakers_is_kept() -> None:
    seg = Segment(0.0, 6.0, "hello there", words((0.2, 0.6), (2.7, 3.4)))
    before = transcript(seg)
    out = assign_speakers(before, diarization())
    assert out is not before
    assert (out.language, out.duration, out.engine, out.text) == (before.language, before.duration, before.engine, before.text)
    assert [(w.start, w.end, w.text) for w in out.words] == [(w.start, w.end, w.text) for w in before.words]
    assert before.words[0].speaker is None  # the input is untouched


@pytest.mark.parametrize(
    ("span", "expected"),
    [((0.5, 1.0), "S1"), ((2.5, 4.0), "S2"), ((6.5, 7.0), "S2"), ((7.2, 7.9), "S1"), ((11.5, 12.0), None)],
)
def test_speaker_at(span: tuple[float, float], expected: str | None) -> None:
    assert diarization().speaker_at(*span) == expected
