"""SRT, WebVTT and ASS output, read back with independent parsers."""

from __future__ import annotations

import html
import itertools
from datetime import timedelta

import pysubs2
import pytest
import srt
import webvtt
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.segment import segment_words
from pipelines.subtitles.style import SubtitleStyle, from_ass
from pipelines.subtitles.timecode import ass_time, srt_time, ticks, vtt_time
from pipelines.subtitles.types import Cue
from pipelines.subtitles.writers import render, to_ass, to_srt, to_vtt
from tests.unit.subtitles.subtitles_support import word_streams

TRICKY = ("a --> b", "x < y & <i>z</i>", "{\\an8}brace} \\N back\\slash")


def cue(start: float, end: float, *lines: str, original: tuple[str, ...] = ()) -> Cue:
    return Cue(1, start, end, tuple(lines), original)


def sample() -> list[Cue]:
    return [
        cue(0.0, 1.5, "Hello there.", "General Kenobi."),
        cue(1.5, 59.9995, *TRICKY[:2]),
        cue(3725.25, 3730.0, TRICKY[2], original=("原文第一行", "第二行")),
    ]


def ms(seconds: float) -> int:
    return ticks(seconds, 1000)


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0.0, "00:00:00,000"),
        (59.9995, "00:01:00,000"),
        (59.9994, "00:00:59,999"),
        (0.0005, "00:00:00,001"),
        (3599.9999, "01:00:00,000"),
        (3600 * 26 + 62.5, "26:01:02,500"),
        (-3.0, "00:00:00,000"),
    ],
)
def test_srt_time(seconds, expected):
    assert srt_time(seconds) == expected
    assert vtt_time(seconds) == expected.replace(",", ".")


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (59.995, "0:01:00.00"),
        (59.9949, "0:00:59.99"),
        (59.9995, "0:01:00.00"),
        (3599.996, "1:00:00.00"),
        (3600 * 12 + 1.234, "12:00:01.23"),
        (0.005, "0:00:00.01"),
    ],
)
def test_ass_time(seconds, expected):
    assert ass_time(seconds) == expected


def test_non_finite_times_are_rejected():
    with pytest.raises(ValueError, match="finite"):
        srt_time(float("nan"))


@settings(max_examples=50, deadline=None)
@given(st.floats(0, 1e6), st.floats(0, 1e6))
def test_rounding_is_monotonic_so_touching_cues_never_overlap(a, b):
    lo, hi = sorted((a, b))
    for unit in (100, 1000):
        assert ticks(lo, unit) <= ticks(hi, unit)


def test_srt_reads_back_with_the_srt_package():
    parsed = list(srt.parse(to_srt(sample())))
    assert [p.index for p in parsed] == [1, 2, 3]
    assert parsed[0].content == "Hello there.\nGeneral Kenobi."
    assert parsed[1].end == timedelta(seconds=60)
    assert parsed[2].start == timedelta(seconds=3725.25)
    assert parsed[1].content.splitlines()[0] == "a -> b"  # "-->" would break the file
    assert parsed[2].content.splitlines()[:2] == ["原文第一行", "第二行"]  # bilingual: original first


def test_vtt_reads_back_with_webvtt_and_unescapes_to_the_text():
    captions = list(webvtt.from_string(to_vtt(sample())))
    assert [c.start for c in captions] == ["00:00:00.000", "00:00:01.500", "01:02:05.250"]
    assert captions[1].end == "00:01:00.000"
    assert [html.unescape(line) for line in captions[1].lines] == list(TRICKY[:2])
    assert "<" not in captions[1].text and "-->" not in captions[1].text
    assert captions[2].lines[:2] == ["原文第一行", "第二行"]


def test_ass_reads_back_with_pysubs2():
    subs = pysubs2.SSAFile.from_string(to_ass(sample(), video_size=(1280, 720)))
    assert subs.info["PlayResX"] == "1280" and subs.info["PlayResY"] == "720"
    events = list(subs)
    assert [e.start for e in events] == [0, 1500, 3725250]
    assert events[1].end == 60000
    assert events[0].plaintext == "Hello there.\nGeneral Kenobi."
    assert events[1].plaintext == "\n".join(TRICKY[:2])
    assert events[2].text.startswith("{\\rOriginal}原文第一行\\N第二行\\N{\\r}")


def test_ass_escapes_braces_and_backslashes():
    text = pysubs2.SSAFile.from_string(to_ass([cue(0, 1, TRICKY[2])]))[0].text
    assert text.count("\\{") == 1 and text.count("\\}") == 2
    assert "{" not in text.replace("\\{", "") and "}" not in text.replace("\\}", "")
    assert "\\N" not in text and "\\s" not in text  # literal backslashes cannot form tags


def test_ass_style_follows_the_subtitle_style():
    style = SubtitleStyle(font="Noto Sans", size=40, color="#FFCC00", outline="#102030", position="top")
    subs = pysubs2.SSAFile.from_string(to_ass([cue(0, 1, "x")], style, (1920, 1080)))
    main, small = subs.styles["Default"], subs.styles["Original"]
    assert (main.fontname, main.fontsize, main.alignment) == ("Noto Sans", 40, 8)
    assert (main.primarycolor.r, main.primarycolor.g, main.primarycolor.b, main.primarycolor.a) == (255, 204, 0, 0)
    assert (main.outlinecolor.r, main.outlinecolor.g, main.outlinecolor.b) == (0x10, 0x20, 0x30)
    assert main.borderstyle == 1 and main.outline == 2.0 and main.shadow == 0
    assert small.fontsize == 30 and small.fontsize < main.fontsize


def test_ass_without_outline_draws_no_stroke():
    subs = pysubs2.SSAFile.from_string(to_ass([cue(0, 1, "x")], SubtitleStyle(outline="")))
    assert subs.styles["Default"].outline == 0


def test_ass_background_becomes_a_translucent_box():
    subs = pysubs2.SSAFile.from_string(to_ass([cue(0, 1, "x")], SubtitleStyle(background="#00000080")))
    main = subs.styles["Default"]
    assert main.borderstyle == 3
    assert main.outlinecolor.a == 0x7F and main.backcolor.a == 0x7F  # ASS alpha: 255 - 0x80
    assert from_ass("&H7F000000").alpha == 0x80


@pytest.mark.parametrize(("position", "alignment"), [("bottom", 2), ("top", 8), ("middle", 5)])
def test_positions_map_to_ass_alignment(position, alignment):
    subs = pysubs2.SSAFile.from_string(to_ass([cue(0, 1, "x")], SubtitleStyle(position=position)))
    assert subs.styles["Default"].alignment == alignment


def test_cues_without_text_are_skipped_and_numbering_stays_dense():
    cues = [cue(0, 1, "a"), cue(1, 2, "  "), Cue(3, 2, 3, ()), cue(3, 4, "b")]
    assert [p.content for p in srt.parse(to_srt(cues))] == ["a", "b"]
    assert [p.index for p in srt.parse(to_srt(cues))] == [1, 2]
    assert len(list(webvtt.from_string(to_vtt(cues)))) == 2


def test_render_dispatches_and_rejects_unknown_formats():
    assert render([cue(0, 1, "a")], "srt").startswith("1\n00:00:00,000")
    assert render([cue(0, 1, "a")], "vtt").startswith("WEBVTT")
    assert render([cue(0, 1, "a")], "ass").startswith("[Script Info]")
    with pytest.raises(ValueError, match="srt, vtt, ass"):
        render([], "burned_video")


@settings(max_examples=20, deadline=None)
@given(words=word_streams(max_words=40))
def test_generated_cues_survive_every_format(words):
    options = SegmentationOptions(speaker_labels=True)
    cues = segment_words(words, options)
    parsed_srt = list(srt.parse(to_srt(cues)))
    assert [p.content for p in parsed_srt] == ["\n".join(c.lines) for c in cues]
    assert [p.start for p in parsed_srt] == [timedelta(milliseconds=ms(c.start)) for c in cues]
    captions = list(webvtt.from_string(to_vtt(cues))) if cues else []
    assert [html.unescape(c.text) for c in captions] == ["\n".join(c.lines) for c in cues]
    events = list(pysubs2.SSAFile.from_string(to_ass(cues))) if cues else []
    assert [e.plaintext for e in events] == ["\n".join(c.lines) for c in cues]
    assert all(a.end <= b.start for a, b in itertools.pairwise(events))
    assert all(a.end <= b.start for a, b in itertools.pairwise(parsed_srt))
