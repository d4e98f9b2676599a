"""Segmentation of ASR words into cues: hard limits, preferences, labels, timing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.segment import segment_segments, segment_words
from pipelines.subtitles.types import Segment, Word
from tests.unit.subtitles.subtitles_support import (
    assert_layout,
    assert_readable,
    body,
    layout_options,
    squash,
    word_streams,
)


def words_of(text: str, start: float = 0.0, step: float = 0.3, length: float = 0.25) -> list[Word]:
    """Whisper-style words, one every ``step`` seconds."""
    return [Word(start + k * step, start + k * step + length, " " + w) for k, w in enumerate(text.split())]


@settings(max_examples=80, deadline=None)
@given(words=word_streams(), options=layout_options)
def test_random_streams_obey_every_hard_rule(words, options):
    cues = segment_words(words, options)
    assert_layout(cues, options)
    assert_readable(cues, options)
    assert "".join(body(c) for c in cues) == squash("".join(w.text for w in words))


@settings(max_examples=40, deadline=None)
@given(words=word_streams(max_words=40), options=layout_options)
def test_each_speaker_turn_starts_a_labelled_cue(words, options):
    cues = segment_words(words, options)
    if not options.speaker_labels:
        assert all(c.speaker is None and c.label == "" for c in cues)
        return
    previous = None
    for cue in cues:
        if cue.speaker != previous and cue.speaker is not None:
            assert cue.label and cue.lines[0].startswith(cue.label), cue
        elif cue.label:
            # only a label cut off by a one-line limit may repeat a speaker
            assert options.max_lines == 1
        previous = cue.speaker


def test_speakers_are_numbered_by_first_appearance():
    words = [
        Word(0.0, 0.4, " Hi", speaker="SPEAKER_07"),
        Word(0.5, 0.9, " there.", speaker="SPEAKER_07"),
        Word(2.0, 2.4, " Hello", speaker="SPEAKER_01"),
        Word(2.5, 2.9, " back.", speaker=None),
        Word(4.0, 4.4, " Bye.", speaker="SPEAKER_07"),
    ]
    cues = segment_words(words, SegmentationOptions(speaker_labels=True))
    assert [c.lines[0] for c in cues] == [
        "[Speaker 1] Hi there.",
        "[Speaker 2] Hello back.",
        "[Speaker 1] Bye.",
    ]
    assert [c.label for c in cues] == ["[Speaker 1]", "[Speaker 2]", "[Speaker 1]"]


def test_labels_shrink_when_lines_are_narrow():
    words = [Word(0.0, 0.4, " Hi", speaker="x"), Word(1.5, 2.0, " yo", speaker="y")]
    cues = segment_words(words, SegmentationOptions(max_chars=10, speaker_labels=True))
    assert [c.label for c in cues] == ["[S1]", "[S2]"]


def test_cues_prefer_ending_at_sentence_ends():
    text = (
        "I went home early because it was raining. Then the dog barked at the "
        "neighbours all night long and nobody could sleep at all."
    )
    cues = segment_words(words_of(text, step=0.25, length=0.2))
    assert any(c.lines[-1].endswith("raining.") for c in cues), cues
    assert cues[-1].lines[-1].endswith("at all.")


def test_a_long_pause_ends_a_cue_even_mid_sentence():
    words = words_of("we will go to the") + words_of("market tomorrow morning", start=4.0)
    cues = segment_words(words)
    assert [squash(" ".join(c.lines)) for c in cues] == ["wewillgotothe", "markettomorrowmorning"]


def test_short_sentences_share_a_cue():
    cues = segment_words(words_of("Yes. No. Maybe.", step=0.4, length=0.35))
    assert [c.lines for c in cues] == [("Yes. No. Maybe.",)]


def test_two_line_cues_are_balanced():
    text = "this sentence is long enough to need two lines but not three"
    cues = segment_words(words_of(text, step=0.08, length=0.07))
    assert len(cues) == 1 and len(cues[0].lines) == 2
    top, bottom = (len(line) for line in cues[0].lines)
    assert abs(top - bottom) <= 8


def test_cjk_is_wrapped_by_character_without_spaces():
    text = "今天天气很好，我们去公园散步吧。然后我们一起吃饭，好不好？"
    words = [Word(k * 0.2, k * 0.2 + 0.2, ch) for k, ch in enumerate(text)]
    options = SegmentationOptions(max_chars=12)
    cues = segment_words(words, options)
    assert_layout(cues, options)
    assert all(" " not in line for c in cues for line in c.lines)
    assert all(not line.startswith(("，", "。", "？")) for c in cues for line in c.lines)
    assert "".join("".join(c.lines) for c in cues) == text


def test_thai_keeps_marks_on_their_base_character():
    words = [Word(k * 0.5, k * 0.5 + 0.4, w) for k, w in enumerate(["สวัสดี", "ครับ", "วันนี้", "อากาศ", "ดีมาก"] * 3)]
    cues = segment_words(words, SegmentationOptions(max_chars=10))
    for cue in cues:
        for line in cue.lines:
            assert line[0] not in "\u0e31\u0e34\u0e35\u0e36\u0e37\u0e48\u0e49\u0e32\u0e30"
            assert line[-1] not in "เแโใไ"


def test_latin_words_are_only_split_when_longer_than_a_line():
    long_word = "pneumonoultramicroscopicsilicovolcanoconiosis"  # 45 letters
    words = words_of(f"the word {long_word} is long")
    cues = segment_words(words, SegmentationOptions(max_chars=20))
    lines = [line for c in cues for line in c.lines]
    short_words = {w for line in lines for w in line.split()} - {"the", "word", "is", "long"}
    assert "".join(sorted(short_words, key=long_word.find)) == long_word
    assert all(len(w) == 20 for w in short_words if long_word.startswith(w))


def test_stripped_words_get_spaces_and_whisper_spacing_is_kept():
    stripped = [Word(0.0, 0.3, "Hello"), Word(0.4, 0.7, "world"), Word(0.8, 1.0, "!")]
    assert segment_words(stripped)[0].lines == ("Hello world!",)
    whisper = [Word(0.0, 0.3, " Hello"), Word(0.4, 0.7, "-world"), Word(0.8, 1.0, " again")]
    assert segment_words(whisper)[0].lines == ("Hello-world again",)


def test_mixed_script_spacing():
    words = [Word(0.0, 0.3, "我"), Word(0.3, 0.6, "用"), Word(0.6, 0.9, "iPhone"), Word(0.9, 1.2, "拍照")]
    assert segment_words(words)[0].lines == ("我用iPhone拍照",)


def test_short_cue_grows_into_the_following_silence():
    cues = segment_words([Word(1.0, 1.2, " Hi."), Word(5.0, 5.5, " Then"), Word(5.5, 6.0, " more.")])
    assert cues[0].start == 1.0 and cues[0].end == pytest.approx(1.7)


def test_short_cue_grows_backwards_when_the_next_cue_is_adjacent():
    words = [Word(0.0, 0.5, " Before."), Word(3.0, 3.2, " Hi!", speaker="A")]
    words += [Word(3.2, 3.6, " Next", speaker="B"), Word(3.6, 4.5, " speaker.", speaker="B")]
    cues = segment_words(words, SegmentationOptions(speaker_labels=True))
    hi = next(c for c in cues if "Hi!" in c.lines[0])
    assert hi.lines == ("[Speaker 1] Hi!",)
    assert hi.end == pytest.approx(3.2)
    assert hi.end - hi.start == pytest.approx(15 / 20.0)  # chars / max_cps beats min_duration


def test_dense_speech_keeps_its_timing_rather_than_overlap():
    words = words_of("a b c d e f g h i j k l m n o p q r s t u v w x y z " * 4, step=0.05, length=0.05)
    options = SegmentationOptions(max_chars=12, max_cps=17)
    cues = segment_words(words, options)
    assert_layout(cues, options)
    assert_readable(cues, options)
    assert any((c.end - c.start) < 0.7 for c in cues)  # too fast to read, accepted


def test_max_duration_splits_long_continuous_speech():
    words = words_of("go " * 200, step=0.3, length=0.3)
    options = SegmentationOptions(max_duration=2.0)
    cues = segment_words(words, options)
    assert_layout(cues, options)
    assert max(c.end - c.start for c in cues) <= 2.0 + 1e-9


def test_broken_asr_timestamps_are_repaired():
    words = [
        Word(2.0, 1.5, " backwards"),
        Word(0.0, 3.0, " overlapping"),
        Word(-1.0, 0.1, " negative"),
        Word(3.0, 40.0, " endless."),
        Word(3.0, 3.0, " "),
    ]
    options = SegmentationOptions()
    cues = segment_words(words, options)
    assert_layout(cues, options)
    assert squash("".join(body(c) for c in cues)) == "negativeoverlappingbackwardsendless."


def test_segments_use_their_words_and_speakers():
    segments = [
        Segment(0.0, 1.0, "ignored", (Word(0.0, 0.4, " Good"), Word(0.5, 1.0, " morning")), speaker="A"),
        Segment(1.0, 2.0, "ignored", (Word(1.0, 1.5, " Hello"), Word(1.5, 2.0, " there")), speaker="B"),
    ]
    cues = segment_segments(segments, SegmentationOptions(speaker_labels=True))
    assert [c.lines for c in cues] == [("[Speaker 1] Good morning",), ("[Speaker 2] Hello there",)]


def test_segments_without_words_are_spread_by_length():
    segments = [Segment(0.0, 4.0, "Hello world, this segment has no word timings at all today.")]
    cues = segment_segments(segments, SegmentationOptions(max_chars=20))
    assert cues[0].start == 0.0 and cues[-1].end == pytest.approx(4.0)
    assert squash("".join("".join(c.lines) for c in cues)) == squash(segments[0].text)


def test_asr_engine_words_are_accepted():
    from engines.asr.types import Word as EngineWord

    words = [EngineWord(0.0, 0.5, " engine"), EngineWord(0.5, 1.0, " words.")]
    assert segment_words(words)[0].lines == ("engine words.",)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_duration": 1.9},
        {"max_duration": 10.5},
        {"max_chars": 9},
        {"max_lines": 3},
        {"min_duration": 6.0},
        {"max_cps": 0},
    ],
)
def test_options_reject_out_of_range_values(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        SegmentationOptions(**kwargs)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(0.0, 1e5), min_size=0, max_size=3))
def test_empty_or_blank_input_gives_no_cues(starts):
    assert segment_words([Word(s, s + 1, "  ") for s in starts]) == []
