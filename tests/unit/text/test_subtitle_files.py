"""Uploaded subtitle files read into cues (engines.text.subtitle_files): SubRip, WebVTT, ASS/SSA and TTML."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

import pytest

from engines.text import subtitle_files
from engines.text.subtitle_files import MAX_CUES, BadSubtitleFile, InputCue, SubtitleFile, read_subtitles

MS = 0.001


def srt(*cues: tuple[str, str]) -> bytes:
    """A SubRip file from (timing, text) pairs, numbered from 1."""
    return "\n".join(f"{n}\n{timing}\n{text}\n" for n, (timing, text) in enumerate(cues, start=1)).encode()


def vtt(body: str) -> bytes:
    return f"WEBVTT\n\n{body}".encode()


ASS_HEAD = """[Script Info]
ScriptType: v4.00+
PlayResX: 1920

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, \
StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,Arial,48,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,2,1,2,20,20,40,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
"""  # 10 lines (the Format line is continued): the first event is on line 11


def ass(*events: str) -> bytes:
    return (ASS_HEAD + "\n".join(events) + "\n").encode()


def ttml(body: str, root_attributes: str = "") -> bytes:
    """A TTML document whose body starts on line 3."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<tt xmlns="http://www.w3.org/ns/ttml" xmlns:ttp="http://www.w3.org/ns/ttml#parameter" xml:lang="en"{root_attributes}>\n'
        f"<body>{body}</body>\n"
        "</tt>\n"
    ).encode()


def times(cue: InputCue) -> tuple[float, float]:
    return cue.start, cue.end


def refusal(data: bytes, filename: str | None = None) -> BadSubtitleFile:
    with pytest.raises(BadSubtitleFile) as caught:
        read_subtitles(data, filename)
    return caught.value


# SubRip


def test_srt_times_text_and_lines() -> None:
    data = srt(
        ("00:00:01,250 --> 00:00:03,500", "Hello there.\nSecond line."),
        ("01:02:03,004 --> 01:02:05,000", "Later."),
    )
    read = read_subtitles(data, "film.srt")
    assert read.format == "srt"
    first, second = read.cues
    assert times(first) == pytest.approx((1.25, 3.5), abs=MS)
    assert first.text == "Hello there.\nSecond line."
    assert first.line == 2
    assert times(second) == pytest.approx((3723.004, 3725.0), abs=MS)
    assert (second.text, second.line, second.speaker) == ("Later.", 7, None)


def test_srt_markup_is_removed_and_whitespace_collapsed() -> None:
    data = srt(
        ("00:00:01,000 --> 00:00:02,000", '<i>Hello</i>   <b>big</b> <font color="#ff0000">world</font>\n<u>again</u>  '),
        ("00:00:03,000 --> 00:00:04,000", "{\\an8}On top"),
    )
    assert [cue.text for cue in read_subtitles(data).cues] == ["Hello big world\nagain", "On top"]


def test_cues_out_of_order_are_sorted_by_start_stably() -> None:
    data = srt(
        ("00:00:09,000 --> 00:00:10,000", "third"),
        ("00:00:01,000 --> 00:00:02,000", "first"),
        ("00:00:05,000 --> 00:00:06,000", "second a"),
        ("00:00:05,000 --> 00:00:07,000", "second b"),
    )
    cues = read_subtitles(data).cues
    assert [cue.text for cue in cues] == ["first", "second a", "second b", "third"]
    assert [cue.line for cue in cues] == [6, 10, 14, 2]


def test_cues_without_text_are_dropped() -> None:
    data = srt(("00:00:01,000 --> 00:00:02,000", "<i></i>"), ("00:00:03,000 --> 00:00:04,000", "kept"))
    assert [cue.text for cue in read_subtitles(data).cues] == ["kept"]


def test_crlf_line_breaks_read_the_same() -> None:
    data = srt(("00:00:01,000 --> 00:00:02,000", "one\ntwo"), ("00:00:03,000 --> 00:00:02,000", "back"))
    crlf = data.replace(b"\n", b"\r\n")
    assert refusal(crlf).line == 7
    good = srt(("00:00:01,000 --> 00:00:02,000", "one\ntwo")).replace(b"\n", b"\r\n")
    assert read_subtitles(good).cues[0].text == "one\ntwo"


@pytest.mark.parametrize(
    ("text", "speaker", "rest"),
    [
        ("[Speaker 2] Hi there.", "Speaker 2", "Hi there."),
        ("[John]: Hi there.", "John", "Hi there."),
        ("(Maria) Hi there.", "Maria", "Hi there."),
        ("SPEAKER_01: Hi there.", "SPEAKER_01", "Hi there."),
        ("Dr. Smith: Hi there.", "Dr. Smith", "Hi there."),
        (">> JOHN SMITH: Good evening.", "JOHN SMITH", "Good evening."),
        ("NARRATOR:\nLong ago.", "NARRATOR", "Long ago."),
    ],
)
def test_speaker_labels_are_read_and_cut(text: str, speaker: str, rest: str) -> None:
    (cue,) = read_subtitles(srt(("00:00:01,000 --> 00:00:02,000", text))).cues
    assert (cue.speaker, cue.text) == (speaker, rest)


@pytest.mark.parametrize(
    "text",
    [
        "(laughs) Very funny.",
        "[music] Here we go.",
        "[door slams] Who's there?",
        "[MUSIC PLAYING] Here we go.",
        "(Laughs) Very funny.",
        "- Where are you?\n- Here.",
        "He said: go home now.",
        "[Speaker 2]",  # the bracket is the cue's whole content
        "Remember this, my friend: never again.",
        "10:30 is too late.",
    ],
)
def test_sound_descriptions_dashes_and_sentences_are_not_speakers(text: str) -> None:
    (cue,) = read_subtitles(srt(("00:00:01,000 --> 00:00:02,000", text))).cues
    assert (cue.speaker, cue.text) == (None, text)


# WebVTT


def test_vtt_times_text_and_lines() -> None:
    data = vtt(
        "NOTE written by hand\nover two lines\n\n"
        "intro\n00:01.500 --> 00:04.000 align:start position:10%\nHello <c.yellow>there</c>,\n<b>you</b> &amp; me.\n\n"
        "00:01:00.000 --> 00:01:02.250\nKaraoke <00:01:00.500>word <00:01:01.000>by word\n\nNOTE a trailing note\n"
    )
    read = read_subtitles(data, "clip.vtt")
    assert read.format == "vtt"
    first, second = read.cues
    assert times(first) == pytest.approx((1.5, 4.0), abs=MS)
    assert (first.text, first.line) == ("Hello there,\nyou & me.", 7)
    assert times(second) == pytest.approx((60.0, 62.25), abs=MS)
    assert (second.text, second.line) == ("Karaoke word by word", 11)


def test_vtt_voice_spans_name_the_speaker() -> None:
    data = vtt(
        "00:01.000 --> 00:02.000\n<v Bob>Hi, Ann.</v>\n\n"
        "00:03.000 --> 00:04.000\n<v.loud Ann Lee>Hello!\nHow are you?</v>\n\n"
        "00:05.000 --> 00:06.000\n<v Ann>Fine.</v>\n<v Bob>Good.</v>\n\n"
        "00:07.000 --> 00:08.000\n[Speaker 3] Labelled.\n"
    )
    cues = read_subtitles(data).cues
    assert [(cue.speaker, cue.text) for cue in cues] == [
        ("Bob", "Hi, Ann."),
        ("Ann Lee", "Hello!\nHow are you?"),
        (None, "Fine.\nGood."),  # two voices in one cue: no single speaker
        ("Speaker 3", "Labelled."),
    ]


def test_the_extension_decides_only_what_the_content_leaves_open() -> None:
    headerless = b"1\n00:00:01.000 --> 00:00:02.000\nHi\n"
    assert read_subtitles(headerless).format == "srt"
    assert read_subtitles(headerless, "clip.vtt").format == "vtt"
    assert read_subtitles(vtt("00:01.000 --> 00:02.000\nHi\n"), "wrong.srt").format == "vtt"
    assert str(refusal(b"", "empty.srt")) == "the file holds no subtitle cue."


# ASS and SSA


def test_ass_times_text_actor_and_lines() -> None:
    data = ass(
        "Dialogue: 0,0:00:01.25,0:00:03.50,Default,Alice,0,0,0,,{\\an8\\i1}Hello,{\\i0}\\Nworld\\nagain",
        "Comment: 0,0:00:01.00,0:00:09.00,Default,,0,0,0,,a note nobody sees",
        "Dialogue: 0,1:02:03.04,1:02:05.00,Default,,0,0,0,,Shape {\\p1}m 0 0 l 100 0 100 100 0 100{\\p0}gone",
        "Dialogue: 0,0:00:05.00,0:00:06.00,Default,,0,0,0,,SPEAKER_02: Labelled\\hhere",
    )
    read = read_subtitles(data, "show.ass")
    assert read.format == "ass"
    first, label, drawing = read.cues
    assert times(first) == pytest.approx((1.25, 3.5), abs=MS)
    assert (first.text, first.speaker, first.line) == ("Hello,\nworld\nagain", "Alice", 11)
    assert (label.text, label.speaker, label.line) == ("Labelled here", "SPEAKER_02", 14)
    assert times(drawing) == pytest.approx((3723.04, 3725.0), abs=MS)
    assert (drawing.text, drawing.line) == ("Shape gone", 13)


def test_ssa_is_read_too() -> None:
    data = (
        b"[Script Info]\nScriptType: v4.00\n\n[V4 Styles]\n"
        b"Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, TertiaryColour, BackColour, Bold, Italic, "
        b"BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, AlphaLevel, Encoding\n"
        b"Style: Default,Arial,20,16777215,65535,65535,0,0,0,1,2,0,2,10,10,10,0,1\n\n[Events]\n"
        b"Format: Marked, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
        b"Dialogue: Marked=0,0:00:02.00,0:00:04.50,Default,Bob,0000,0000,0000,,Old format\n"
    )
    (cue,) = read_subtitles(data).cues
    assert times(cue) == pytest.approx((2.0, 4.5), abs=MS)
    assert (cue.text, cue.speaker, cue.line) == ("Old format", "Bob", 10)


# TTML


def test_ttml_times_resolve_nested_offsets_and_text() -> None:
    data = ttml(
        '\n<div begin="10s">\n'  # line 4; a begin offset without an end on the div
        '<p begin="1s" end="2.5s">Hello <span tts:color="red" xmlns:tts="http://www.w3.org/ns/ttml#styling">world</span>'
        "<br/>\n   second   line</p>\n"  # line 5
        "</div>\n"
        '<div timeContainer="seq" begin="00:01:00.000">\n'  # line 8
        '<p dur="20000000t">one</p>\n'  # line 9: 2 s at the tick rate
        '<p dur="00:00:01.5">two</p>\n'
        "</div>\n"
        '<div begin="100s" end="101s"><p begin="0.5s" end="5s">cut short by its div</p></div>\n',  # line 12
        root_attributes=' ttp:tickRate="10000000"',
    )
    read = read_subtitles(data, "film.ttml")
    assert read.format == "ttml"
    assert [(times(cue), cue.text, cue.line) for cue in read.cues] == [
        (pytest.approx((11.0, 12.5), abs=MS), "Hello world\nsecond line", 5),
        (pytest.approx((60.0, 62.0), abs=MS), "one", 9),
        (pytest.approx((62.0, 63.5), abs=MS), "two", 10),
        (pytest.approx((100.5, 101.0), abs=MS), "cut short by its div", 12),
    ]


def test_ttml_speaker_label_and_ruby() -> None:
    data = ttml(
        '<div xmlns:tts="http://www.w3.org/ns/ttml#styling">'
        '<p begin="1s" end="2s">[Speaker 1] Good morning.</p>'
        '<p begin="3s" end="4s"><span tts:ruby="container"><span tts:ruby="base">漢字</span>'
        '<span tts:ruby="text">かんじ</span></span>です</p>'
        "</div>"
    )
    cues = read_subtitles(data).cues
    assert [(cue.speaker, cue.text) for cue in cues] == [("Speaker 1", "Good morning."), (None, "漢字です")]


def test_ttml_paragraph_timed_by_its_spans() -> None:
    data = ttml('<div><p begin="5s">\n<span begin="0s" end="1s">a</span> <span begin="1s" end="3s">b</span></p></div>')
    (cue,) = read_subtitles(data).cues
    assert (times(cue), cue.text) == (pytest.approx((5.0, 8.0), abs=MS), "a b")


# Encodings


@pytest.mark.parametrize(
    "encoded",
    [
        lambda text: text.encode("utf-8"),
        lambda text: codecs.BOM_UTF8 + text.encode("utf-8"),
        lambda text: text.encode("utf-16"),  # with its byte-order mark
        lambda text: codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
        lambda text: codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
    ],
    ids=["utf-8", "utf-8-bom", "utf-16", "utf-16-be-bom", "utf-16-le-bom"],
)
def test_utf8_and_utf16_with_bom_are_read(encoded: Callable[[str], bytes]) -> None:
    text = "1\n00:00:01,000 --> 00:00:02,000\nÇa va? 日本語\n"
    (cue,) = read_subtitles(encoded(text)).cues
    assert (cue.text, cue.line) == ("Ça va? 日本語", 2)


# Refusals


def test_binary_data_names_the_line_of_the_first_bad_byte() -> None:
    nul = b"1\n00:00:01,000 --> 00:00:02,000\nfine\nbad \x00 here\n"
    assert (refusal(nul).line, str(refusal(nul)).startswith("line 4: the file is not text (a NUL byte")) == (4, True)
    latin1 = "1\n00:00:01,000 --> 00:00:02,000\nCafé\n".encode("latin-1")
    assert refusal(latin1).line == 3
    assert "not UTF-8" in str(refusal(latin1))
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    assert refusal(png).line == 1
    utf16_without_bom = "1\n00:00:01,000 --> 00:00:02,000\nHi\n".encode("utf-16-le")
    assert refusal(utf16_without_bom).line == 1


@pytest.mark.parametrize(
    ("data", "line", "written"),
    [
        (
            srt(("00:00:01,000 --> 00:00:02,000", "ok"), ("00:00:05,000 --> 00:00:04,000", "back")),
            6,
            "00:00:05,000 --> 00:00:04,000",
        ),
        (vtt("00:01.000 --> 00:02.000\nok\n\n00:09.000 --> 00:03.000\nback\n"), 6, "00:09.000 --> 00:03.000"),
        (ass("Dialogue: 0,0:00:05.00,0:00:04.00,Default,,0,0,0,,back"), 11, "Start 0:00:05.00, End 0:00:04.00"),
        (ttml('<div>\n<p begin="5s" end="4s">back</p></div>'), 4, 'begin="5s" end="4s"'),
    ],
    ids=["srt", "vtt", "ass", "ttml"],
)
def test_times_running_backwards_name_the_line_and_the_times(data: bytes, line: int, written: str) -> None:
    error = refusal(data)
    assert error.line == line
    assert str(error) == f"line {line}: the cue ends before it starts ({written})."


@pytest.mark.parametrize(
    "data",
    [
        srt(("00:00:03,000 --> 00:00:03,000", "no time at all")),
        ttml('<div>\n<p begin="3s" end="3s">no time at all</p></div>'),
    ],
    ids=["srt", "ttml"],
)
def test_a_cue_that_ends_as_it_starts_is_refused(data: bytes) -> None:
    assert "ends the moment it starts" in str(refusal(data))


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (srt(("00:00:01,000 --> 00:00:02,000", "ok"), ("00:00:03 --> 00:00:04,000", "no milliseconds")), 6),
        (srt(("00:00:01,000 --> 00:00:02,000", "ok"), ("00:00:03,000 -->", "no end")), 6),
        (vtt("00:01.000 --> 00:02.000\nok\n\n00:00:03,000 --> 00:00:04,000\ncommas\n"), 6),
    ],
    ids=["srt-no-ms", "srt-no-end", "vtt-commas"],
)
def test_a_timing_line_the_library_would_skip_is_refused(data: bytes, line: int) -> None:
    error = refusal(data)
    assert error.line == line
    assert str(error).startswith(f"line {line}: the timing line cannot be read (")


def test_unreadable_ass_lines_are_named() -> None:
    bad_time = ass(
        "Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,ok", "Dialogue: 0,0:0x:03.00,0:00:04.00,Default,,0,0,0,,bad"
    )
    assert refusal(bad_time).line == 12
    short = ass("Dialogue: 0,0:00:01.00,0:00:02.00")
    assert str(refusal(short)) == "line 11: the event has 3 of the 10 fields an event needs."
    bad_style = ASS_HEAD.replace(",48,", ",4x8,").encode() + b"Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,ok\n"
    assert refusal(bad_style).line == 7


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"WEBVTT\n\nNOTE only a note\n",
        srt(("00:00:01,000 --> 00:00:02,000", "  ")),
        ass("Comment: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,only a comment"),
        ttml("<div/>"),
    ],
    ids=["empty", "vtt-note", "srt-blank", "ass-comment", "ttml-empty"],
)
def test_a_file_without_cues_is_refused(data: bytes) -> None:
    error = refusal(data, "upload.srt")
    assert (str(error), error.line) == ("the file holds no subtitle cue.", None)


def test_unknown_formats_are_refused_naming_the_formats_read() -> None:
    for data in (b"just some text\n", b"<html><body>hi</body></html>"):
        message = str(refusal(data))
        assert all(name in message for name in ("SubRip", "WebVTT", "ASS", "TTML"))


def test_ttml_doctype_and_entities_are_refused_before_parsing() -> None:
    laughs = (
        b'<?xml version="1.0"?>\n<!DOCTYPE tt [\n<!ENTITY lol "lol">\n<!ENTITY lol2 "&lol;&lol;&lol;&lol;">\n]>\n'
        b'<tt xmlns="http://www.w3.org/ns/ttml"><body><div><p begin="0s" end="1s">&lol2;</p></div></body></tt>\n'
    )
    assert str(refusal(laughs)).startswith("line 2: the document declares a DOCTYPE or entities")
    external = b'<?xml version="1.0"?>\n\n<!doctype tt SYSTEM "file:///etc/passwd">\n<tt/>'
    assert refusal(external).line == 3


def test_ttml_syntax_errors_name_the_line() -> None:
    data = ttml('<div>\n<p begin="1s" end="2s">one<br></p>\n</div>')
    assert str(refusal(data)) == "line 4: the document is not well-formed XML."


@pytest.mark.parametrize(
    ("body", "line", "start"),
    [
        ('<div>\n<p begin="1s" end="soon">x</p></div>', 4, 'line 4: the time end="soon" cannot be read.'),
        ('<div>\n<p begin="1s">no end anywhere</p></div>', 4, "line 4: the cue has no end"),
        ('\n<p begin="1s" end="2s">outside a div</p>', 4, "line 4: the <p> is not inside a <div>"),
    ],
    ids=["bad-time", "no-end", "loose-p"],
)
def test_ttml_timing_and_structure_problems_name_the_line(body: str, line: int, start: str) -> None:
    error = refusal(ttml(body))
    assert error.line == line
    assert str(error).startswith(start)


def test_xml_that_is_not_ttml_is_refused() -> None:
    data = b'<?xml version="1.0"?>\n<tt xmlns="http://example.com/not-ttml"><body/></tt>'
    assert str(refusal(data)).startswith("the file is XML but not TTML;")


def test_files_over_the_size_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    data = srt(("00:00:01,000 --> 00:00:02,000", "x" * 200))
    monkeypatch.setattr(subtitle_files, "MAX_SUBTITLE_BYTES", 100)
    error = refusal(data)
    assert error.line is None
    assert str(error) == f"the file is {len(data):,} bytes long, more than the 100 bytes a subtitle file may be."


def test_files_over_the_cue_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    assert MAX_CUES == 20_000
    monkeypatch.setattr(subtitle_files, "MAX_CUES", 3)
    three = [(f"00:00:0{n},000 --> 00:00:0{n},500", f"cue {n}") for n in range(1, 4)]
    assert len(read_subtitles(srt(*three)).cues) == 3
    error = refusal(srt(*three, ("00:00:05,000 --> 00:00:06,000", "one too many")))
    assert (error.line, str(error)) == (None, "the file holds 4 cues, more than the 3 a file may hold.")


REFUSED = {
    "nul": b"1\n00:00:01,000 --> 00:00:02,000\n\x00\n",
    "not-utf8": b"1\n00:00:01,000 --> 00:00:02,000\n\xff\xfe\xfd\n",
    "backwards": srt(("00:00:05,000 --> 00:00:04,000", "x")),
    "timing": srt(("00:00:03 --> 00:00:04,000", "x")),
    "no-cue": b"WEBVTT\n",
    "unknown": b"hello",
    "ass-time": ass("Dialogue: 0,0:0x:03.00,0:00:04.00,Default,,0,0,0,,bad"),
    "doctype": b'<!DOCTYPE tt SYSTEM "http://example.com/x.dtd">\n<tt/>',
    "xml-syntax": b'<tt xmlns="http://www.w3.org/ns/ttml"><body></tt>',
    "ttml-time": ttml('<div><p begin="1s" end="2/3s">x</p></div>'),
    "ttml-clock": ttml('<div><p begin="1s" end="2s">x</p></div>', root_attributes=' ttp:timeBase="clock"'),
}


@pytest.mark.parametrize("data", REFUSED.values(), ids=REFUSED.keys())
def test_messages_are_one_line_in_the_services_words(data: bytes) -> None:
    message = str(refusal(data))
    assert "\n" not in message and message.endswith(".")
    assert "Traceback" not in message
    assert not re.search(r"\w/\w|[/\\][\w.]+[/\\]", message.replace('"2/3s"', "")), message  # no path
    assert not re.search(r"\b\w*(Error|Exception|Warning)\b|BadSubtitleFile|pysubs2|ttconv|expat", message), message


def test_the_public_types() -> None:
    read = read_subtitles(srt(("00:00:01,000 --> 00:00:02,000", "x")))
    assert isinstance(read, SubtitleFile) and isinstance(read.cues, tuple)
    assert read.cues == (InputCue(start=1.0, end=2.0, text="x", speaker=None, line=2),)
    assert issubclass(BadSubtitleFile, ValueError)
