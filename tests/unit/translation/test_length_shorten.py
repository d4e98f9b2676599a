"""shorten(): length bound, atomic markup, balanced tags, word boundaries, lines."""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.translation.length import ELLIPSIS, shorten
from engines.translation.markup import CLOSE, OPEN, TAG, find_spans
from tests.unit.translation.translation_support import FAST, markup_texts, paired_tags_nest


def markup(text: str) -> Counter[str]:
    return Counter(s.text for s in find_spans(text))


def unpaired(text: str) -> Counter[str]:
    return Counter(s.text for s in find_spans(text) if s.kind == TAG)


@FAST
@given(markup_texts(), st.integers(0, 120))
def test_bound_atoms_and_balance(text: str, max_length: int) -> None:
    out = shorten(text, max_length)
    assert len(out) <= max_length
    # every placeholder, tag and emoji left is a whole one from the source
    assert markup(out) <= markup(text)
    # no tag lost its partner, and nesting still holds
    assert unpaired(out) <= unpaired(text)
    assert paired_tags_nest(out)
    assert shorten(text, max_length) == out


@FAST
@given(markup_texts())
def test_text_that_fits_is_returned_as_is(text: str) -> None:
    assert shorten(text, len(text)) == text
    assert shorten(text, len(text) + 10) == text


@FAST
@given(
    st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]), min_size=2, max_size=12), st.integers(6, 60)
)
def test_cuts_fall_between_words_when_a_word_fits(words: list[str], max_length: int) -> None:
    text = " ".join(words)
    out = shorten(text, max_length).removesuffix(ELLIPSIS)
    if len(words[0]) <= max_length:
        kept = out.split(" ")
        assert kept == words[: len(kept)]


def test_ellipsis_only_when_there_is_room() -> None:
    assert shorten("Hello wonderful world", 12) == "Hello" + ELLIPSIS
    assert shorten("Hello world", 5) == "Hello"


def test_a_lone_long_word_is_cut_on_characters() -> None:
    assert shorten("Supercalifragilistic", 8) == "Superca" + ELLIPSIS


def test_tags_close_around_what_is_left() -> None:
    out = shorten("<color=#f00>Hello</color> wonderful {0} world", 30)
    assert out.startswith("<color=#f00>Hello") and out.endswith("</color>")
    assert shorten("<b>Hello big world</b>", 12) == "<b>Hello</b>"


def test_placeholders_are_dropped_whole_or_kept_whole() -> None:
    for n in range(0, 22):
        out = shorten("{player_name} found %1$s gold", n)
        assert markup(out) <= Counter({"{player_name}": 1, "%1$s": 1})


def test_every_line_keeps_a_share() -> None:
    out = shorten("Line one is long\nLine two is longer", 20)
    assert len(out) <= 20
    first, second = out.split("\n")
    assert first.startswith("Line") and second.startswith("Line")


def test_lines_go_only_when_one_word_each_cannot_fit() -> None:
    assert shorten("a\nb\nc\nd", 3).count("\n") == 1
    assert shorten("alpha\nbeta", 4) == "a\nb"  # two lines cut mid-word beat one line


def test_no_space_scripts_cut_between_graphemes() -> None:
    out = shorten("新しいゲームを始めましょう", 6)
    assert out == "新しいゲー" + ELLIPSIS
    thai = "สวัสดีครับ"  # combining vowel and tone marks must stay on their base
    for n in range(1, len(thai)):
        cut = shorten(thai, n).removesuffix(ELLIPSIS)
        assert thai.startswith(cut)
        assert not unicodedata.category(thai[len(cut)]).startswith("M")


def test_emoji_sequences_are_never_split() -> None:
    family = "👨\u200d👩\u200d👧"
    for n in range(0, 12):
        out = shorten(f"{family} {family} hi", n)
        assert out.replace(family, "").replace(" ", "").replace(ELLIPSIS, "") in {"", "h", "hi"}


@pytest.mark.parametrize("bad", [-1, -10])
def test_negative_length_is_an_error(bad: int) -> None:
    with pytest.raises(ValueError):
        shorten("text", bad)


def test_open_and_close_kinds_survive_as_pairs() -> None:
    out = shorten("[b]one two three[/b] and [color=red]four[/color]", 20)
    kinds = [s.kind for s in find_spans(out)]
    assert kinds.count(OPEN) == kinds.count(CLOSE) >= 1
