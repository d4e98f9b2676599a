"""SRT, WebVTT and ASS files from cues; ``render`` also dispatches to TTML.

Cues are numbered by position and cues with no text are skipped. When a cue
carries ``original_lines`` (bilingual output, see ``translate_cues``) the
source lines come first and the translation below; in ASS the source block
uses the smaller ``Original`` style. Text is escaped for each format, so
speech containing ``-->``, ``<``, ``&``, braces or backslashes cannot break
the file or turn into markup. IMSC TTML and EBU-TT-D come from
``timed_text``, which follows the same rules.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pipelines.subtitles.style import SubtitleStyle, hex_to_ass
from pipelines.subtitles.timecode import ass_time, srt_time, vtt_time
from pipelines.subtitles.timed_text import to_ebu_tt_d, to_ttml
from pipelines.subtitles.types import Cue

FORMATS = ("srt", "vtt", "ass", "ttml", "ebu_tt_d")
DEFAULT_VIDEO_SIZE = (1920, 1080)
_TRANSPARENT = "&HFF000000"
_WORD_JOINER = "\u2060"


def _shown(cues: Sequence[Cue]) -> Iterator[tuple[Cue, tuple[str, ...], tuple[str, ...]]]:
    for cue in cues:
        original, lines = cue.blocks()
        if original or lines:
            yield cue, original, lines


def escape_srt(line: str) -> str:
    """Neutralise ``-->``, which would read as a timing line."""
    while "-->" in line:
        line = line.replace("-->", "->")
    return line


def escape_vtt(line: str) -> str:
    """Entity-escape ``&``, ``<`` and ``>`` (the last also breaks any ``-->``)."""
    return line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_ass(line: str) -> str:
    r"""Keep text literal in ASS.

    A backslash gets an invisible word joiner after it so ``\N`` or ``\h`` in
    speech stay text; braces are written ``\{`` and ``\}`` (libass, which
    ffmpeg uses to burn subtitles, reads them as literal braces).
    """
    line = line.replace("\\", "\\" + _WORD_JOINER)
    return line.replace("{", "\\{").replace("}", "\\}")


def to_srt(cues: Sequence[Cue]) -> str:
    """SubRip text: numbered blocks separated by blank lines."""
    blocks = []
    for n, (cue, original, lines) in enumerate(_shown(cues), start=1):
        body = "\n".join(escape_srt(line) for line in (*original, *lines))
        blocks.append(f"{n}\n{srt_time(cue.start)} --> {srt_time(cue.end)}\n{body}\n")
    return "\n".join(blocks)


def to_vtt(cues: Sequence[Cue]) -> str:
    """WebVTT text."""
    blocks = ["WEBVTT\n"]
    for cue, original, lines in _shown(cues):
        body = "\n".join(escape_vtt(line) for line in (*original, *lines))
        blocks.append(f"{vtt_time(cue.start)} --> {vtt_time(cue.end)}\n{body}\n")
    return "\n".join(blocks)


def to_ass(
    cues: Sequence[Cue],
    style: SubtitleStyle | None = None,
    video_size: tuple[int, int] = DEFAULT_VIDEO_SIZE,
) -> str:
    """Advanced SubStation Alpha text styled by ``style``.

    ``video_size`` (width, height) becomes the script resolution, so
    ``style.size`` and widths are pixels of the video.
    """
    style = style or SubtitleStyle()
    width, height = _check_size(video_size)
    events = [_dialogue(cue, original, lines) for cue, original, lines in _shown(cues)]
    return "\n".join([*_header(width, height), *_styles(style, width, height), *events]) + "\n"


def render(
    cues: Sequence[Cue],
    fmt: str,
    style: SubtitleStyle | None = None,
    video_size: tuple[int, int] = DEFAULT_VIDEO_SIZE,
    *,
    language: str = "und",
) -> str:
    """Text of ``fmt`` (one of ``FORMATS``).

    ``style`` and ``video_size`` apply to ASS only; ``language`` (BCP 47,
    ``und`` when unknown) is the ``xml:lang`` of TTML and EBU-TT-D.
    """
    if fmt == "srt":
        return to_srt(cues)
    if fmt == "vtt":
        return to_vtt(cues)
    if fmt == "ass":
        return to_ass(cues, style, video_size)
    if fmt == "ttml":
        return to_ttml(cues, language)
    if fmt == "ebu_tt_d":
        return to_ebu_tt_d(cues, language)
    raise ValueError(f"subtitle format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def _check_size(video_size: tuple[int, int]) -> tuple[int, int]:
    width, height = video_size
    if width <= 0 or height <= 0:
        raise ValueError(f"video_size must be positive (width, height), got {video_size!r}")
    return int(width), int(height)


def _header(width: int, height: int) -> list[str]:
    return [
        "[Script Info]",
        "ScriptType: v4.00+",
        f"PlayResX: {width}",
        f"PlayResY: {height}",
        "WrapStyle: 0",
        "ScaledBorderAndShadow: yes",
        "YCbCr Matrix: None",
        "",
    ]


_STYLE_FORMAT = (
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, "
    "BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, "
    "BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding"
)


def _styles(style: SubtitleStyle, width: int, height: int) -> list[str]:
    small = max(1, round(style.size * style.original_scale))
    return [
        "[V4+ Styles]",
        _STYLE_FORMAT,
        _style_line("Default", style, style.size, width, height),
        _style_line("Original", style, small, width, height),
        "",
        "[Events]",
        "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
    ]


def _style_line(name: str, style: SubtitleStyle, size: int, width: int, height: int) -> str:
    """One ``Style:`` line.

    Without a background: BorderStyle 1, stroke in OutlineColour (none when
    ``outline`` is empty). With one: BorderStyle 3, an opaque box whose
    colour libass takes from OutlineColour and other renderers from
    BackColour, so both carry it; ``Outline`` is then the box padding.
    """
    scale = size / style.size
    primary = hex_to_ass(style.color)
    if style.background:
        border, box = 3, hex_to_ass(style.background)
        outline_colour, back_colour = box, box
        outline = max(style.outline_width, style.size / 6) * scale
    else:
        border, back_colour = 1, _TRANSPARENT
        outline_colour = hex_to_ass(style.outline) if style.outline else _TRANSPARENT
        outline = style.outline_width * scale if style.outline else 0.0
    margin_h, margin_v = round(width * 0.05), round(height * 0.05)
    fields = [
        name, style.font, str(size), primary, primary, outline_colour, back_colour,
        "0", "0", "0", "0", "100", "100", "0", "0",
        str(border), f"{outline:g}", "0", str(style.alignment),
        str(margin_h), str(margin_h), str(margin_v), "1",
    ]  # fmt: skip
    return "Style: " + ",".join(fields)


def _dialogue(cue: Cue, original: tuple[str, ...], lines: tuple[str, ...]) -> str:
    text = "\\N".join(escape_ass(line) for line in lines)
    if original:
        head = "{\\rOriginal}" + "\\N".join(escape_ass(line) for line in original)
        text = head + ("\\N{\\r}" + text if text else "")
    return f"Dialogue: 0,{ass_time(cue.start)},{ass_time(cue.end)},Default,,0,0,0,,{text}"
