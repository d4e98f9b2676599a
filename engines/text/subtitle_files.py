"""Subtitle files that clients upload, read into timed plain-text cues, so the subtitles they have can be translated.

``read_subtitles`` takes the bytes of a SubRip, WebVTT, ASS/SSA or TTML file (or of the service's own
transcript JSON, ``transcript_json``) and returns its cues
(:class:`InputCue`: start and end in seconds, plain text, the speaker when the file names one, the
line of the cue in the file), sorted by start. A file it cannot read raises :class:`BadSubtitleFile`,
whose message is one line in the service's words and names the first bad line where there is one.

The formats are read by maintained libraries rather than parsers of our own: pysubs2 for SubRip,
WebVTT and ASS/SSA (this module), and ttconv's IMSC reader for TTML, IMSC and EBU-TT-D
(``subtitle_ttml``), since it resolves TTML's nested timing and the service already writes TTML
with it. What they do not give is done by hand: the line numbers for the messages, speaker labels
(``subtitle_speakers``), and the checks for what a lenient reader passes over. The cue type, the
error and the checks every format shares are in ``subtitle_cues``. pysubs2 takes any line
with two timestamps for a timing line, and text up to the next one; a timing line it cannot read
is silently taken for text, so every line with ``-->`` must be one it reads. Its cues are matched to
the lines it read them from with its own timestamp patterns, the same way it finds them. For WebVTT,
lines outside cue payloads (identifiers, ``NOTE`` blocks) are blanked before pysubs2 reads the file,
as a WebVTT parser skips them; line numbers do not move.

Bytes are read as UTF-8 (with or without a byte-order mark) or as UTF-16 with one; anything else,
NUL bytes and other control characters are refused at their line. The format is found from the
content (a ``WEBVTT`` header, ASS sections, an XML document, ``-->`` timing lines); the file name's
extension only decides what the content leaves open.
"""

from __future__ import annotations

import codecs
import html
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

import pysubs2
from pysubs2.formats.subrip import SubripFormat
from pysubs2.formats.substation import SECTION_HEADING, parse_tags
from pysubs2.formats.webvtt import WebVTTFormat

from engines.text.subtitle_cues import FORMATS_READ, BadSubtitleFile, InputCue, quoted, tidy_lines, timed_cue
from engines.text.subtitle_speakers import split_speaker, vtt_voice
from engines.text.subtitle_ttml import read_ttml
from engines.text.transcript_json import read_transcript_json

__all__ = ["MAX_CUES", "MAX_SUBTITLE_BYTES", "BadSubtitleFile", "InputCue", "SubtitleFile", "read_subtitles"]

MAX_SUBTITLE_BYTES = 2 * 1024 * 1024
MAX_CUES = 20_000

SubtitleFormat = Literal["srt", "vtt", "ass", "ttml", "transcript"]
#: The file name's extension, for what the content leaves open.
EXTENSIONS: dict[str, SubtitleFormat] = {
    ".srt": "srt", ".vtt": "vtt", ".webvtt": "vtt", ".ass": "ass", ".ssa": "ass",
    ".ttml": "ttml", ".dfxp": "ttml", ".xml": "ttml", ".json": "transcript",
}  # fmt: skip

_NOT_TEXT = "the file is not text ({}; subtitle files are read as UTF-8, or as UTF-16 with a byte-order mark)."
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_WEBVTT_HEADER = re.compile(r"WEBVTT(?:[ \t\n]|$)")
_ASS_SECTION = re.compile(r"^[ \t]*\[(?:Script Info|V4\+? Styles|Events)\][ \t]*$", re.IGNORECASE | re.MULTILINE)
_TIMING_ARROW = re.compile(r"^.*-->", re.MULTILINE)
_VTT_TIMESTAMP_TAG = re.compile(r"<\d[\d:.]*>")
_VTT_ANNOTATION = re.compile(r"<rt>.*?</rt>", re.DOTALL)
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_ASS_FIELDS = 10  # Layer (or Marked), Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text


@dataclass(frozen=True)
class SubtitleFile:
    """The cues of one uploaded file, sorted by start (stable), cues without text left out."""

    format: SubtitleFormat
    cues: tuple[InputCue, ...]


def read_subtitles(data: bytes, filename: str | None = None) -> SubtitleFile:
    """The cues of a SubRip, WebVTT, ASS/SSA or TTML file; :class:`BadSubtitleFile` when it cannot be read."""
    if len(data) > MAX_SUBTITLE_BYTES:
        raise BadSubtitleFile(
            None, f"the file is {len(data):,} bytes long, more than the {MAX_SUBTITLE_BYTES:,} bytes a subtitle file may be."
        )
    text = decode(data)
    file_format = detect_format(text, filename)
    if file_format == "ttml":
        cues = read_ttml(text)
    elif file_format == "transcript":
        cues = read_transcript_json(text)
    elif file_format == "ass":
        cues = read_ass(text)
    else:
        cues = read_timed_text(text, file_format)
    if not cues:
        raise BadSubtitleFile(None, "the file holds no subtitle cue.")
    if len(cues) > MAX_CUES:
        raise BadSubtitleFile(None, f"the file holds {len(cues):,} cues, more than the {MAX_CUES:,} a file may hold.")
    return SubtitleFile(format=file_format, cues=tuple(sorted(cues, key=lambda cue: cue.start)))


def decode(data: bytes) -> str:
    """The text, line breaks as ``\\n``; bytes that are not UTF-8 (or UTF-16 after its BOM) and control characters refused."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        codec, body = "utf-16", data
    else:
        codec, body = "utf-8", data.removeprefix(codecs.BOM_UTF8)
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as error:
        prefix = body[: error.start - error.start % 2] if codec == "utf-16" else body[: error.start]
        line = prefix.decode(codec, errors="replace").replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
        raise BadSubtitleFile(line, _NOT_TEXT.format(f"bytes that are not {codec.upper()}")) from error
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    control = _CONTROL.search(text)
    if control is not None:
        what = "a NUL byte" if control.group() == "\x00" else f"the control character U+{ord(control.group()):04X}"
        raise BadSubtitleFile(text.count("\n", 0, control.start()) + 1, _NOT_TEXT.format(what))
    return text


def detect_format(text: str, filename: str | None) -> SubtitleFormat:
    """The format the content shows; the extension of ``filename`` decides only what the content leaves open."""
    extension = EXTENSIONS.get(PurePath(filename).suffix.lower()) if filename else None
    head = text.lstrip()
    if _WEBVTT_HEADER.match(head):
        return "vtt"
    if _ASS_SECTION.search(text):
        return "ass"
    if head.startswith("<"):
        return "ttml"  # an XML document: read_ttml refuses one whose root is not TTML's tt
    if head.startswith("{"):
        return "transcript"  # a JSON document: the service's own transcript (transcript_json)
    if _TIMING_ARROW.search(text):
        return "vtt" if extension == "vtt" else "srt"  # WebVTT without its header reads like SubRip
    if extension is not None:
        return extension
    raise BadSubtitleFile(None, f"the file is not in a subtitle format this service reads: {FORMATS_READ}.")


def read_timed_text(text: str, file_format: Literal["srt", "vtt"]) -> list[InputCue]:
    """SubRip and WebVTT cues, through pysubs2, each matched to its timing line."""
    reader = WebVTTFormat if file_format == "vtt" else SubripFormat
    lines = vtt_cue_lines(text.split("\n")) if file_format == "vtt" else text.split("\n")
    timing_lines = [number for number, line in enumerate(lines, 1) if len(reader.TIMESTAMP.findall(line)) == 2]
    refuse_unread_timing(lines, set(timing_lines))
    try:
        subs = pysubs2.SSAFile.from_string("\n".join(lines), format_=file_format, keep_unknown_html_tags=True)
    except Exception as error:
        raise BadSubtitleFile(None, f"the file cannot be read as {file_format.upper()}.") from error
    cues = []
    for event, number in zip(subs.events, timing_lines, strict=True):
        speaker, body = markup_free_text(event, file_format)
        written = " --> ".join(match.group() for match in reader.TIMESTAMP.finditer(lines[number - 1]))
        cues.append(timed_cue(event.start / 1000, event.end / 1000, body, speaker, number, written))
    return [cue for cue in cues if cue is not None]


def vtt_cue_lines(lines: list[str]) -> list[str]:
    """WebVTT lines with all but timing lines and cue payloads blanked, and timestamp tags removed from payloads.

    A payload runs from its timing line to the first blank line; cue identifiers, ``NOTE``, ``STYLE``
    and ``REGION`` blocks lie outside, where a WebVTT parser skips them and pysubs2 would not.
    """
    kept, in_payload = [], False
    for line in lines:
        if "-->" in line:
            in_payload = True
            kept.append(line)
        elif in_payload and line.strip():
            kept.append(_VTT_TIMESTAMP_TAG.sub("", line))
        else:
            in_payload = False
            kept.append("")
    return kept


def refuse_unread_timing(lines: list[str], timing_lines: set[int]) -> None:
    """A ``-->`` line pysubs2 does not read as two times would be taken for text: refused at its line."""
    for number, line in enumerate(lines, 1):
        if "-->" in line and number not in timing_lines:
            raise BadSubtitleFile(number, f"the timing line cannot be read ({quoted(line)}).")


def markup_free_text(event: pysubs2.SSAEvent, file_format: Literal["srt", "vtt"]) -> tuple[str | None, str]:
    """Speaker and plain text of a SubRip or WebVTT cue: pysubs2 turned ``<i> <b> <u> <s>`` into override
    tags and kept the other tags, so voices can be read before the tags go."""
    voice = vtt_voice(event.text) if file_format == "vtt" else None
    text = _HTML_TAG.sub("", _VTT_ANNOTATION.sub("", event.plaintext))
    if file_format == "vtt":
        text = html.unescape(text)
    return with_speaker(tidy_lines(text), voice)


def with_speaker(text: str, speaker: str | None) -> tuple[str | None, str]:
    """The speaker the file names, else the one a label at the start of the text names (the label then cut)."""
    if speaker:
        return speaker, text
    labelled, rest = split_speaker(text)
    return labelled, tidy_lines(rest)


def read_ass(text: str) -> list[InputCue]:
    """ASS and SSA Dialogue events, through pysubs2; comments and vector drawings left out."""
    file_format = "ssa" if re.search(r"^\s*\[V4 Styles\]", text, re.MULTILINE | re.IGNORECASE) else "ass"
    lines = text.split("\n")
    event_lines = ass_event_lines(lines)
    refuse_short_dialogues(lines, event_lines)
    try:
        subs = pysubs2.SSAFile.from_string(text, format_=file_format)
    except Exception as error:
        raise BadSubtitleFile(
            first_unreadable_ass_line(lines, file_format), "the line cannot be read: a time, number or colour in it is malformed."
        ) from error
    cues = []
    for event, number in zip(subs.events, event_lines, strict=True):
        if event.is_comment:
            continue
        style = subs.styles.get(event.style, pysubs2.SSAStyle.DEFAULT_STYLE)
        shown = "".join(
            fragment for fragment, fragment_style in parse_tags(event.text, style, subs.styles) if not fragment_style.drawing
        )
        body = shown.replace(r"\h", " ").replace(r"\N", "\n").replace(r"\n", "\n")
        speaker, plain = with_speaker(tidy_lines(body), event.name.strip() or None)
        start, end = lines[number - 1].split(":", 1)[1].split(",")[1:3]
        cues.append(
            timed_cue(event.start / 1000, event.end / 1000, plain, speaker, number, f"Start {start.strip()}, End {end.strip()}")
        )
    return [cue for cue in cues if cue is not None]


def ass_event_lines(lines: list[str]) -> list[int]:
    """The lines pysubs2 reads events from, in order: ``Dialogue:`` and ``Comment:`` lines outside the
    script info, Aegisub, fonts and graphics sections (its own section pattern decides where they are)."""
    numbers, skipped = [], False
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if SECTION_HEADING.match(line):
            skipped = any(word in line for word in ("Info", "Aegisub", "Fonts", "Graphics"))
        elif not skipped and line.startswith(("Dialogue:", "Comment:")):
            numbers.append(number)
    return numbers


def refuse_short_dialogues(lines: list[str], event_lines: list[int]) -> None:
    """A Dialogue line with fewer than ten fields would get pysubs2's default times: refused at its line."""
    for number in event_lines:
        kind, rest = lines[number - 1].split(":", 1)
        fields = rest.split(",", _ASS_FIELDS - 1)
        if kind.strip() == "Dialogue" and len(fields) < _ASS_FIELDS:
            raise BadSubtitleFile(number, f"the event has {len(fields)} of the {_ASS_FIELDS} fields an event needs.")


def first_unreadable_ass_line(lines: list[str], file_format: str) -> int | None:
    """The first Style or event line pysubs2 fails on when it reads that line alone (only after it failed on the file)."""
    for number, raw in enumerate(lines, 1):
        if raw.strip().startswith(("Style:", "Dialogue:", "Comment:")):
            try:
                pysubs2.SSAFile.from_string(f"[Events]\n{raw}", format_=file_format)
            except Exception:
                return number
    return None
