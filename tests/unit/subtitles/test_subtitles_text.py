"""Character counting, break units and plain-text wrapping."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.subtitles.text import display_length, hard_split, join_lines, split_units
from pipelines.subtitles.wrap import wrap_text


def test_combining_marks_do_not_count():
    assert display_length("สวัสดี") == 4 < len("สวัสดี")
    assert display_length("e\u0301") == 1
    assert display_length("今天") == 2


@pytest.mark.parametrize(
    ("word", "units"),
    [
        ("你好。", ["你", "好。"]),
        ("「你好」", ["「你", "好」"]),
        ("iPhone手机", ["iPhone", "手", "机"]),
        ("ちょっと", ["ちょっ", "と"]),  # small kana never start a line
        ("เกิด", ["เกิ", "ด"]),  # the preposed vowel stays with its consonant
        ("hello,", ["hello,"]),
    ],
)
def test_split_units(word, units):
    assert split_units(word) == units


@settings(max_examples=50, deadline=None)
@given(st.text(min_size=1, max_size=40).filter(lambda s: not any(c.isspace() for c in s)))
def test_units_recompose_the_word(word):
    assert "".join(split_units(word)) == word


@settings(max_examples=50, deadline=None)
@given(st.text(alphabet="abcé\u0301ก\u0e34", min_size=1, max_size=100), st.integers(1, 20))
def test_hard_split_respects_width_and_keeps_marks(text, width):
    pieces = hard_split(text, width)
    assert "".join(pieces) == text
    assert all(display_length(p) <= width for p in pieces)


def test_wrap_text_balances_two_lines():
    lines = wrap_text("the quick brown fox jumps over the lazy dog again", 30)
    assert len(lines) == 2
    assert abs(len(lines[0]) - len(lines[1])) <= 6


def test_wrap_text_prefers_a_shorter_top_line_on_ties():
    assert wrap_text("abc de fgh", 9) == ("abc", "de fgh")


def test_wrap_text_keeps_short_text_on_one_line():
    assert wrap_text("short text", 42) == ("short text",)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=10), min_size=1, max_size=30),
    st.integers(10, 60),
)
def test_wrap_text_never_breaks_a_word_that_fits(words, width):
    lines = wrap_text(" ".join(words), width)
    assert [w for line in lines for w in line.split()] == words
    assert all(len(line) <= width for line in lines)


def test_join_lines_uses_spaces_only_where_the_script_does():
    assert join_lines(["今天", "很好"]) == "今天很好"
    assert join_lines(["good", "morning"]) == "good morning"
    assert join_lines(["iPhone", "手机"]) == "iPhone手机"
