"""Re-laying translated text onto source cue timing."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.segment import renumber, segment_words
from pipelines.subtitles.text import display_length
from pipelines.subtitles.translation import (
    cue_text,
    fit_text,
    group_sentences,
    translate_cues,
    translate_sentences,
)
from pipelines.subtitles.types import Cue
from tests.unit.subtitles.subtitles_support import CJK, assert_layout, body, layout_options, squash, word_streams

translated_words = st.one_of(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzéü", min_size=1, max_size=14),
    st.text(alphabet=CJK + "，。", min_size=1, max_size=8),
    st.text(alphabet="abcdefghij", min_size=30, max_size=90),
)
translations = st.lists(translated_words, min_size=0, max_size=30).map(" ".join)


def cue(start: float, end: float, *lines: str, label: str = "", speaker: str | None = None) -> Cue:
    return Cue(1, start, end, tuple(lines), speaker=speaker, label=label)


def test_a_translation_that_fits_keeps_the_cue_timing():
    out = translate_cues([cue(1.0, 3.0, "Hello there.")], ["Bonjour à vous."])
    assert [(c.start, c.end, c.lines) for c in out] == [(1.0, 3.0, ("Bonjour à vous.",))]


def test_a_long_translation_is_rewrapped_into_two_balanced_lines():
    out = translate_cues([cue(0.0, 4.0, "It is late.")], ["Il est déjà très tard ce soir, rentrons à la maison"])
    assert len(out) == 1 and len(out[0].lines) == 2
    assert all(display_length(line) <= 42 for line in out[0].lines)
    assert out[0].lines[0].endswith(",")  # the clause break wins over a 1-char better balance


def test_a_translation_too_long_for_two_lines_is_split_in_time_by_length():
    first = "Das ist der erste Satz der Übersetzung, er ist wirklich recht lang geraten."
    second = "Kurz danach."
    out = translate_cues([cue(10.0, 15.0, "source")], [f"{first} {second}"])
    assert len(out) == 2
    assert out[0].start == 10.0 and out[-1].end == 15.0 and out[0].end == out[1].start
    assert out[0].lines[-1].endswith("geraten.")
    share = len(squash(first)) / len(squash(first + second))
    assert (out[0].end - 10.0) / 5.0 == pytest.approx(share, abs=0.05)
    assert [c.index for c in out] == [1, 2]


@settings(max_examples=50, deadline=None)
@given(words=word_streams(max_words=40), options=layout_options, data=st.data())
def test_translated_cues_obey_the_same_rules(words, options, data):
    source = segment_words(words, options)
    texts = [data.draw(translations) for _ in source]
    bilingual = data.draw(st.booleans())
    out = translate_cues(source, texts, options, bilingual=bilingual)
    assert [c.index for c in out] == list(range(1, len(out) + 1))
    assert_layout(renumber([c for c in out if c.lines]), options)
    assert "".join(body(c) for c in out) == squash("".join(texts))
    one_by_one = [translate_cues([s], [t], options, bilingual=bilingual) for s, t in zip(source, texts)]
    assert [replace(c, index=0) for part in one_by_one for c in part] == [replace(c, index=0) for c in out]
    for owner, pieces in zip(source, one_by_one):
        for piece in pieces:
            assert owner.start <= piece.start <= piece.end <= owner.end
            assert piece.speaker == owner.speaker
        assert [p.label for p in pieces[:1]] == [owner.label][: len(pieces)]
    if bilingual:
        for c in out:
            assert len(c.original_lines) <= options.max_lines
            assert all(display_length(line) <= options.max_chars for line in c.original_lines)
        assert "".join(_original_body(c) for c in out) == "".join(body(s) for s in source)


def _original_body(piece: Cue) -> str:
    text = squash("".join(piece.original_lines))
    return text[len(squash(piece.label)) :] if piece.label else text


def test_bilingual_pieces_carry_the_source_words_spoken_in_them():
    source = cue(0.0, 6.0, "one two three four", "five six seven eight")
    long_text = "un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize"
    out = translate_cues([source], [long_text], SegmentationOptions(max_chars=20), bilingual=True)
    assert len(out) > 1
    originals = [" ".join(c.original_lines) for c in out]
    assert " ".join(originals).split() == ["one", "two", "three", "four", "five", "six", "seven", "eight"]
    assert originals[0].startswith("one") and originals[-1].endswith("eight")


def test_labels_are_not_translated_but_are_shown_again():
    source = cue(0.0, 2.0, "[Speaker 2] Good morning", label="[Speaker 2]", speaker="Speaker 2")
    assert cue_text(source) == "Good morning"
    out = translate_cues([source], ["Bonjour"], bilingual=True)
    assert out[0].lines == ("[Speaker 2] Bonjour",)
    assert out[0].original_lines == ("[Speaker 2] Good morning",)
    assert out[0].label == "[Speaker 2]" and out[0].speaker == "Speaker 2"


def test_cue_text_joins_cjk_lines_without_spaces_and_latin_with():
    assert cue_text(cue(0, 1, "今天天气", "很好。")) == "今天天气很好。"
    assert cue_text(cue(0, 1, "good", "morning")) == "good morning"


def test_blank_translations_drop_the_cue_unless_bilingual():
    cues = [cue(0.0, 1.0, "a"), cue(1.0, 2.0, "b")]
    assert [c.lines for c in translate_cues(cues, ["x", "  "])] == [("x",)]
    both = translate_cues(cues, ["x", ""], bilingual=True)
    assert [(c.lines, c.original_lines) for c in both] == [(("x",), ("a",)), ((), ("b",))]


def test_translation_count_must_match():
    with pytest.raises(ValueError, match="2 translations for 1 cues"):
        translate_cues([cue(0, 1, "a")], ["x", "y"])


def test_fit_text_tiles_its_span():
    out = fit_text("word " * 60, 2.0, 9.0, SegmentationOptions(max_chars=20, max_duration=3.0))
    assert out[0].start == 2.0 and out[-1].end == pytest.approx(9.0)
    assert all(a.end == b.start for a, b in itertools.pairwise(out))
    assert max(c.end - c.start for c in out) <= 3.0 + 1e-9


def test_sentence_groups_end_at_sentence_ends_labels_and_size():
    cues = [
        cue(0, 1, "we went"),
        cue(1, 2, "home."),
        cue(2, 3, "then"),
        cue(3, 4, "[Speaker 2] who", label="[Speaker 2]"),
        *(cue(4 + k, 5 + k, "no punctuation") for k in range(5)),
    ]
    groups = group_sentences(cues, max_cues=4)
    assert [len(g) for g in groups] == [2, 1, 4, 2]


def test_sentence_translation_skips_the_silence_between_cues():
    group = (cue(0.0, 2.0, "I think"), cue(6.0, 8.0, "that it works."))
    out = translate_sentences([group], ["Je pense que cela fonctionne très bien en réalité."])
    assert all(not (2.0 < c.start < 6.0) for c in out)
    assert out[0].start == 0.0 and out[-1].end == pytest.approx(8.0)


def test_bilingual_sentence_translation_keeps_each_source_cue():
    group = (cue(0.0, 2.0, "I think"), cue(2.0, 4.0, "that it works."))
    out = translate_sentences([group], ["Je pense que ça marche."], bilingual=True)
    assert [c.original_lines for c in out] == [("I think",), ("that it works.",)]
    assert squash("".join(line for c in out for line in c.lines)) == squash("Je pense que ça marche.")
