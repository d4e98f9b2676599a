"""Colour conversion and style validation."""

from __future__ import annotations

import pysubs2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.subtitles.style import (
    Rgba,
    SubtitleStyle,
    from_ass,
    hex_to_ass,
    parse_hex_color,
    to_ass,
    to_hex,
)
from pipelines.subtitles.writers import to_ass as to_ass_file

channels = st.integers(0, 255)
colors = st.builds(Rgba, channels, channels, channels, channels)


@pytest.mark.parametrize(
    ("hex_value", "ass"),
    [
        ("#FFFFFF", "&H00FFFFFF"),
        ("#000000", "&H00000000"),
        ("#FF0000", "&H000000FF"),  # red is the last byte in ASS
        ("#0000ff", "&H00FF0000"),
        ("#00000080", "&H7F000000"),  # half-transparent black
        ("#12345600", "&HFF563412"),  # alpha 00 (invisible) is ASS FF
    ],
)
def test_hex_to_ass(hex_value, ass):
    assert hex_to_ass(hex_value) == ass


@settings(max_examples=50, deadline=None)
@given(colors)
def test_ass_round_trip(color):
    assert from_ass(to_ass(color)) == color
    assert parse_hex_color(to_hex(color)) == color


@settings(max_examples=30, deadline=None)
@given(colors)
def test_pysubs2_reads_our_colours_the_same_way(color):
    style = SubtitleStyle(color=to_hex(color), background=to_hex(color))
    parsed = pysubs2.SSAFile.from_string(to_ass_file([], style)).styles["Default"]
    for got in (parsed.primarycolor, parsed.backcolor):
        assert (got.r, got.g, got.b, 255 - got.a) == (color.red, color.green, color.blue, color.alpha)


@pytest.mark.parametrize("bad", ["FFFFFF", "#FFF", "#GGGGGG", "#FFFFFFF", "#FFFFFF80 ", "red", ""])
def test_invalid_colours_are_rejected_with_the_field_name(bad):
    if bad == "#FFFFFF80 ":
        assert parse_hex_color(bad).alpha == 0x80  # surrounding spaces are tolerated
        return
    with pytest.raises(ValueError, match=r"color must be a hex colour like #FFFFFF"):
        SubtitleStyle(color=bad)


def test_defaults_match_the_api_contract():
    style = SubtitleStyle()
    assert (style.font, style.size, style.color, style.outline) == ("PingFang SC", 24, "#FFFFFF", "#000000")
    assert (style.outline_width, style.background, style.position) == (2.0, None, "bottom")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"outline_width": 0.5}, "outline_width must be between 1.0 and 4.0"),
        ({"outline_width": 4.5}, "outline_width"),
        ({"position": "left"}, "position must be one of bottom, top, middle"),
        ({"size": 0}, "size"),
        ({"size": 24.5}, "size"),
        ({"font": "Arial, Bold"}, "font"),
        ({"outline": "#00"}, "outline must be a hex colour"),
        ({"background": "black"}, "background must be a hex colour"),
    ],
)
def test_style_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SubtitleStyle(**kwargs)


def test_empty_outline_and_background_mean_none():
    style = SubtitleStyle(outline="", background="")
    assert style.outline == "" and not style.background
