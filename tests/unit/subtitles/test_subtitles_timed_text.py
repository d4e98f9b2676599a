"""IMSC 1.1 TTML and EBU-TT-D output, read back with ttconv and run through the IMSC HRM."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest
import srt
from hypothesis import given, settings
from hypothesis import strategies as st
from imschrm import doc_sequence, hrm
from ttconv import model
from ttconv import style_properties as styles
from ttconv.imsc import reader

from pipelines.subtitles import FORMATS, render, to_ebu_tt_d, to_srt, to_ttml
from pipelines.subtitles.types import Cue

TT = "{http://www.w3.org/ns/ttml}"
TTP = "{http://www.w3.org/ns/ttml#parameter}"
TTS = "{http://www.w3.org/ns/ttml#styling}"
EBUTTS = "{urn:ebu:tt:style}"
EBUTTM = "{urn:ebu:tt:metadata}"
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
IMSC_11_TEXT = "http://www.w3.org/ns/ttml/profile/imsc1.1/text"
MEDIA_TIME = re.compile(r"\d{2,}:[0-5]\d:[0-5]\d\.\d{3}")
BOTH = pytest.mark.parametrize("write", [to_ttml, to_ebu_tt_d], ids=["ttml", "ebu_tt_d"])


def cue(start: float, end: float, *lines: str, original: tuple[str, ...] = (), label: str = "") -> Cue:
    return Cue(1, start, end, tuple(lines), original, speaker="Speaker 2" if label else None, label=label)


def sample() -> list[Cue]:
    return [
        cue(0.0, 1.5, "Hello there.", "General Kenobi."),
        cue(1.5, 4.0, "[Speaker 2] Tom & Jerry <b>not bold</b>", "\"quoted\" 'single' a --> b", label="[Speaker 2]"),
        cue(4.0, 6.25, "Bonjour  à tous.", original=("مرحبا بالجميع!", "שלום לכולם?")),
        cue(6.25, 9.0, "今天天气很好", "日本語のテキストです 😀🎬"),
        cue(9.0, 9.5, "   ", original=("",)),
        cue(3599.9995, 3725.2505, "An hour in."),
    ]


# (begin ms, end ms, lines) of each shown cue: blank cue dropped, source lines first, times rounded half-up.
EXPECTED = [
    (0, 1500, ["Hello there.", "General Kenobi."]),
    (1500, 4000, ["[Speaker 2] Tom & Jerry <b>not bold</b>", "\"quoted\" 'single' a --> b"]),
    (4000, 6250, ["مرحبا بالجميع!", "שלום לכולם?", "Bonjour à tous."]),
    (6250, 9000, ["今天天气很好", "日本語のテキストです 😀🎬"]),
    (3_600_000, 3_725_251, ["An hour in."]),
]


def read_back(doc: str) -> model.ContentDocument:
    document = reader.to_model(ET.ElementTree(ET.fromstring(doc)))
    assert document is not None
    return document


def paragraphs(document: model.ContentDocument) -> list[model.P]:
    body = document.get_body()
    return [e for e in body.dfs_iterator() if isinstance(e, model.P)] if body else []


def lines_of(p: model.P) -> list[str]:
    lines = [""]
    for element in p.dfs_iterator():
        if isinstance(element, model.Br):
            lines.append("")
        elif isinstance(element, model.Text):
            lines[-1] += element.get_text()
    return lines


def spans(document: model.ContentDocument) -> list[model.Span]:
    return [s for p in paragraphs(document) for s in p if isinstance(s, model.Span)]


def hrm_errors(doc: str) -> list[str]:
    class Recorder(hrm.EventHandler):
        def __init__(self) -> None:
            self.errors: list[str] = []

        def error(self, msg, doc_index, time_offset, available_time, stats):
            self.errors.append(f"{msg} at {float(time_offset):.3f}s")

    recorder = Recorder()
    hrm.validate(doc_sequence.iter_isd(iter([(0, None, doc)])), recorder)
    return recorder.errors


@BOTH
def test_text_and_times_round_trip(write):
    cues = sample()
    got = [(p.get_begin() or Fraction(0), p.get_end(), lines_of(p)) for p in paragraphs(read_back(write(cues, "fr")))]
    assert got == [(Fraction(b, 1000), Fraction(e, 1000), lines) for b, e, lines in EXPECTED]
    shown = [c for c in cues if "".join(c.lines).strip()]
    for (begin, end, _), source in zip(got, shown, strict=True):
        assert abs(begin - Fraction(repr(source.start))) <= Fraction(1, 1000)
        assert abs(end - Fraction(repr(source.end))) <= Fraction(1, 1000)


line_texts = st.text(alphabet=" \t\u00a0ab&<>\"'éمש今😀", max_size=10)
cue_texts = st.tuples(st.lists(line_texts, max_size=3), st.lists(line_texts, max_size=2))


@settings(max_examples=60, deadline=None)
@given(st.lists(cue_texts, min_size=1, max_size=6))
def test_same_lines_as_srt(texts):
    """Blank lines and cues, whitespace and bilingual order follow ``writers``: SRT shows the same lines."""
    cues = [cue(k, k + 1, *lines, original=tuple(original)) for k, (lines, original) in enumerate(texts)]
    expected = [(s.start.total_seconds(), s.content.split("\n")) for s in srt.parse(to_srt(cues))]
    for write in (to_ttml, to_ebu_tt_d):
        got = [(float(p.get_begin() or 0), lines_of(p)) for p in paragraphs(read_back(write(cues, "en")))]
        assert got == expected


@BOTH
def test_times_are_media_clock_times_and_never_overlap(write):
    root = ET.fromstring(write(sample(), "en"))
    assert root.get(f"{TTP}timeBase") == "media"
    ps = list(root.iter(f"{TT}p"))
    assert len(ps) == len(EXPECTED)
    for p in ps:
        assert MEDIA_TIME.fullmatch(p.get("begin")), p.get("begin")
        assert MEDIA_TIME.fullmatch(p.get("end")), p.get("end")
    assert ps[-1].get("begin") == "01:00:00.000"
    assert ps[-1].get("end") == "01:02:05.251"
    times = [(p.get_begin() or 0, p.get_end()) for p in paragraphs(read_back(write(sample(), "en")))]
    for (_, end), (begin, _) in itertools.pairwise(times):
        assert end <= begin


def test_back_to_back_cues_keep_shared_boundary():
    cues = [cue(10.0004, 10.0005, "a"), cue(10.0005, 12.3456789, "b"), cue(12.3456789, 100 * 3600 + 0.5, "c")]
    for write in (to_ttml, to_ebu_tt_d):
        ps = list(ET.fromstring(write(cues, "en")).iter(f"{TT}p"))
        assert [(p.get("begin"), p.get("end")) for p in ps] == [
            ("00:00:10.000", "00:00:10.001"),
            ("00:00:10.001", "00:00:12.346"),
            ("00:00:12.346", "100:00:00.500"),
        ]


def test_ttml_declares_imsc_11_text_profile_and_language():
    root = ET.fromstring(to_ttml(sample(), "ar-EG"))
    assert root.tag == f"{TT}tt"
    assert root.get(f"{TTP}contentProfiles") == IMSC_11_TEXT
    assert root.get(XML_LANG) == "ar-EG"
    document = read_back(to_ttml(sample(), "ar-EG"))
    assert document.get_content_profiles() == {IMSC_11_TEXT}
    assert document.get_lang() == "ar-EG"


def test_ttml_style_and_region():
    document = read_back(to_ttml(sample(), "en"))
    (region,) = document.iter_regions()
    origin, extent = region.get_style(styles.StyleProperties.Origin), region.get_style(styles.StyleProperties.Extent)
    assert region.get_style(styles.StyleProperties.DisplayAlign) is styles.DisplayAlignType.after
    assert origin.y.value + extent.height.value <= 95  # bottom of the screen, inside the title-safe area
    assert origin.y.value >= 50
    assert {p.get_region() for p in paragraphs(document)} == {region}
    body = document.get_body()
    assert body.get_style(styles.StyleProperties.Color) == styles.NamedColors.white.value
    for span in spans(document):
        red, green, blue, alpha = span.get_style(styles.StyleProperties.BackgroundColor).components
        assert (red, green, blue) == (0, 0, 0)
        assert 0 < alpha < 255


def test_ebu_tt_d_conventions():
    root = ET.fromstring(to_ebu_tt_d(sample(), "de"))
    assert root.get(XML_LANG) == "de"
    assert root.get(f"{TTP}timeBase") == "media"
    assert root.get(f"{TTP}cellResolution") == "32 15"
    assert root.get(f"{TTP}contentProfiles") is None  # not an EBU-TT-D attribute
    head = root.find(f"{TT}head")
    assert [child.tag for child in head] == [f"{TT}metadata", f"{TT}styling", f"{TT}layout"]
    standards = [e.text for e in head.find(f"{TT}metadata").iter(f"{EBUTTM}conformsToStandard")]
    assert standards == ["urn:ebu:tt:distribution:2018-04"]

    style_ids = {s.get(XML_ID) for s in head.iter(f"{TT}style")}
    region_ids = {r.get(XML_ID) for r in head.iter(f"{TT}region")}
    assert style_ids
    assert region_ids
    for region in head.iter(f"{TT}region"):
        assert re.fullmatch(r"\d+(\.\d+)?% \d+(\.\d+)?%", region.get(f"{TTS}origin"))
        assert re.fullmatch(r"\d+(\.\d+)?% \d+(\.\d+)?%", region.get(f"{TTS}extent"))
    for style in head.iter(f"{TT}style"):
        for key, value in style.attrib.items():
            if key in (f"{TTS}color", f"{TTS}backgroundColor"):
                assert re.fullmatch(r"#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?", value), (key, value)
            if key in (f"{TTS}fontSize", f"{TTS}lineHeight"):
                assert re.fullmatch(r"\d+(\.\d+)?%", value), (key, value)

    body = root.find(f"{TT}body")
    ids = [p.get(XML_ID) for p in body.iter(f"{TT}p")]
    assert all(ids)
    assert len(set(ids)) == len(ids) == len(EXPECTED)
    for element in body.iter():
        inline = [k for k in element.attrib if k.startswith((TTS, EBUTTS))]
        assert not inline, (element.tag, inline)  # EBU-TT-D allows referential styling only
        assert set(element.get("style", "").split()) <= style_ids
        assert element.get("region") in (None, *region_ids)
    assert {child.tag for child in body} == {f"{TT}div"}
    assert {child.tag for div in body for child in div} == {f"{TT}p"}


def test_ebu_tt_d_resolves_to_the_same_styles_as_ttml():
    def resolved(doc: str) -> list[dict]:
        document = read_back(doc)
        elements = [document.get_body(), *paragraphs(document), *spans(document)]
        return [{prop: e.get_style(prop) for prop in e.iter_styles()} for e in elements]

    ttml, ebu = resolved(to_ttml(sample(), "en")), resolved(to_ebu_tt_d(sample(), "en"))
    assert ttml == ebu
    assert ttml[0]  # the body carries the default style


def test_right_to_left_lines_are_embedded_rtl():
    cues = [cue(0, 1, "«مرحبا»", "Hi!", original=("123 שלום?",)), cue(1, 2, "[Speaker 1] مرحبا", "今日は")]
    for write in (to_ttml, to_ebu_tt_d):
        directions = [s.get_style(styles.StyleProperties.Direction) for s in spans(read_back(write(cues, "ar")))]
        rtl = styles.DirectionType.rtl
        assert directions == [rtl, rtl, None, None, None]


@BOTH
def test_characters_xml_cannot_carry_are_dropped(write):
    cues = [cue(0, 1, "bell\x07 and\x00 nul", "\ufffe"), cue(1, 2, "\x01\x02"), cue(2, 3, "tab\tok")]
    got = [lines_of(p) for p in paragraphs(read_back(write(cues, "en")))]
    assert got == [["bell and nul"], ["tab ok"]]


@BOTH
def test_no_cues(write):
    root = ET.fromstring(write([cue(0, 1, " ")], "en"))
    assert not list(root.iter(f"{TT}p"))
    assert list(root.iter(f"{TT}region"))
    if write is to_ebu_tt_d:
        assert root.find(f"{TT}body") is None  # an EBU-TT-D body needs at least one <p>
        assert list(root.iter(f"{TT}style"))


@BOTH
def test_documents_pass_the_imsc_hypothetical_render_model(write):
    assert hrm_errors(write(sample(), "en")) == []
    long_show = [cue(k * 2.0, k * 2.0 + 2.0, f"Line {k} with some words.", "And a second line.") for k in range(300)]
    assert hrm_errors(write(long_show, "en")) == []


def test_hrm_check_catches_an_overloaded_document():
    text = "This line is far too long to draw in time " * 3
    flicker = [cue(k * 0.02, (k + 1) * 0.02, f"{text}{k}", text) for k in range(20)]
    assert hrm_errors(to_ttml(flicker, "en"))


def test_render_dispatches_to_timed_text():
    cues = sample()
    assert {"ttml", "ebu_tt_d"} <= set(FORMATS)
    assert render(cues, "ttml", language="fr") == to_ttml(cues, "fr")
    assert render(cues, "ebu_tt_d", language="fr") == to_ebu_tt_d(cues, "fr")
    assert ET.fromstring(render(cues, "ttml")).get(XML_LANG) == "und"
    assert ET.fromstring(render(cues, "ebu_tt_d")).get(XML_LANG) == "und"
    assert render(cues, "srt", language="fr") == to_srt(cues)
    with pytest.raises(ValueError, match="ebu_tt_d"):
        render(cues, "dfxp")
