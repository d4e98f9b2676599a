"""Merging chunk transcripts: no word lost, none doubled, times monotonic."""

from __future__ import annotations

import pytest

from engines.asr.audio import merge_transcripts, normalize_word
from engines.errors import InvalidInput


def _texts(t) -> list[str]:
    return [normalize_word(w.text) for w in t.words]


def _starts(t) -> list[float]:
    return [w.start for w in t.words]


def test_adjacent_chunks_are_concatenated_in_offset_order(make_transcript):
    a = make_transcript([(0.5, 0.9, "one"), (1.0, 1.4, "two")], offset=0.0, duration=10.0)
    b = make_transcript([(10.2, 10.6, "three"), (11.0, 11.3, "four")], offset=10.0, duration=5.0)
    merged = merge_transcripts([b, a])
    assert _texts(merged) == ["one", "two", "three", "four"]
    assert merged.offset == 0.0 and merged.duration == pytest.approx(15.0)
    assert merged.text == "one two three four"


def test_word_spilling_past_its_chunk_is_kept_and_clamped(make_transcript):
    a = make_transcript([(9.5, 10.3, "edge")], offset=0.0, duration=10.0)
    b = make_transcript([(10.4, 10.8, "next")], offset=10.0, duration=5.0)
    merged = merge_transcripts([a, b])
    assert _texts(merged) == ["edge", "next"]
    assert merged.words[0].end == 10.0
    assert _starts(merged) == sorted(_starts(merged))


def test_overlap_is_owned_by_the_chunk_holding_the_midpoint(make_transcript):
    # chunks overlap on [10, 12]; the seam is 11.0
    a = make_transcript([(8.0, 8.5, "alpha"), (10.2, 10.6, "beta"), (11.2, 11.6, "gamma")], offset=0.0, duration=12.0)
    b = make_transcript([(10.25, 10.65, "beta"), (11.2, 11.6, "gamma"), (13.0, 13.5, "delta")], offset=10.0, duration=6.0)
    merged = merge_transcripts([a, b])
    assert _texts(merged) == ["alpha", "beta", "gamma", "delta"]
    assert merged.words[1].start == 10.2  # from a
    assert merged.words[2].start == 11.2  # from b


def test_same_word_on_both_sides_of_a_seam_is_kept_once(make_transcript):
    a = make_transcript([(1.0, 1.5, "hello"), (9.6, 10.0, "world")], offset=0.0, duration=10.0)
    b = make_transcript([(9.9, 10.3, "World."), (11.0, 11.5, "again")], offset=9.9, duration=5.0)
    merged = merge_transcripts([a, b])
    assert _texts(merged) == ["hello", "world", "again"]


def test_repeated_word_not_overlapping_in_time_is_kept(make_transcript):
    a = make_transcript([(9.0, 9.4, "very")], offset=0.0, duration=10.0)
    b = make_transcript([(10.5, 10.9, "very"), (11.0, 11.4, "good")], offset=10.0, duration=5.0)
    assert _texts(merge_transcripts([a, b])) == ["very", "very", "good"]


def test_segment_emptied_by_ownership_is_dropped_and_others_rebuilt(make_transcript):
    a = make_transcript([(10.5, 11.5, "x")], offset=0.0, duration=12.0)
    b = make_transcript([(10.5, 11.5, "x"), (12.5, 13.0, "y")], offset=10.0, duration=5.0)
    merged = merge_transcripts([a, b])
    assert len(merged.segments) == 1
    assert merged.segments[0].text == "x y"
    assert merged.segments[0].start == 10.5


def test_language_is_the_one_covering_most_audio(make_transcript):
    a = make_transcript([(1, 2, "a")], offset=0.0, duration=30.0, language="de", probability=0.8)
    b = make_transcript([(31, 32, "b")], offset=30.0, duration=10.0, language="en", probability=0.9)
    c = make_transcript([(41, 42, "c")], offset=40.0, duration=30.0, language="de", probability=0.6)
    merged = merge_transcripts([a, b, c])
    assert merged.language == "de"
    assert merged.language_probability == pytest.approx(0.7)


def test_empty_chunk_does_not_break_merge(make_transcript):
    a = make_transcript([(1.0, 1.5, "one")], offset=0.0, duration=10.0)
    silent = make_transcript([], offset=10.0, duration=10.0)
    c = make_transcript([(21.0, 21.5, "two")], offset=20.0, duration=10.0)
    merged = merge_transcripts([a, silent, c])
    assert _texts(merged) == ["one", "two"]
    assert merged.duration == 30.0


def test_nothing_to_merge_is_invalid():
    with pytest.raises(InvalidInput):
        merge_transcripts([])
