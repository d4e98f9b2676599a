"""Subtitle appearance for ASS files and burned-in video, with validation.

Colours arrive as CSS-style hex (``#RRGGBB`` or ``#RRGGBBAA``, alpha 00 =
transparent, FF = opaque). ASS writes ``&HAABBGGRR`` with blue first and an
inverted alpha (00 = opaque), a classic source of invisible subtitles, so
the conversion lives in one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.specs.video import (
    DEFAULT_FONT,
    DEFAULT_FONT_SIZE,
    DEFAULT_OUTLINE_COLOR,
    DEFAULT_OUTLINE_WIDTH,
    DEFAULT_POSITION,
    DEFAULT_TEXT_COLOR,
    OUTLINE_WIDTH_RANGE,
    POSITIONS,
)

#: ASS numpad alignment for each position (bottom-centre, top-centre, centre).
ALIGNMENT = {"bottom": 2, "top": 8, "middle": 5}
MIN_OUTLINE_WIDTH, MAX_OUTLINE_WIDTH = OUTLINE_WIDTH_RANGE

_HEX = re.compile(r"#([0-9a-fA-F]{6})([0-9a-fA-F]{2})?")
_ASS = re.compile(r"&H([0-9a-fA-F]{8})&?")


@dataclass(frozen=True)
class Rgba:
    """A colour with straight alpha.

    Attributes:
        red: 0..255.
        green: 0..255.
        blue: 0..255.
        alpha: Opacity 0..255; 255 is fully opaque.
    """

    red: int
    green: int
    blue: int
    alpha: int = 255


def parse_hex_color(value: str, field: str = "colour") -> Rgba:
    """Parse ``#RRGGBB`` or ``#RRGGBBAA`` (case-insensitive).

    Raises:
        ValueError: naming ``field`` and the accepted forms.
    """
    match = _HEX.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f"{field} must be a hex colour like #FFFFFF or #00000080, got {value!r}")
    rgb, alpha = match.group(1), match.group(2) or "ff"
    return Rgba(int(rgb[0:2], 16), int(rgb[2:4], 16), int(rgb[4:6], 16), int(alpha, 16))


def to_hex(color: Rgba) -> str:
    """``#RRGGBBAA`` in upper case."""
    return f"#{color.red:02X}{color.green:02X}{color.blue:02X}{color.alpha:02X}"


def to_ass(color: Rgba) -> str:
    """ASS colour ``&HAABBGGRR`` (alpha inverted: 00 is opaque)."""
    return f"&H{255 - color.alpha:02X}{color.blue:02X}{color.green:02X}{color.red:02X}"


def from_ass(value: str) -> Rgba:
    """Parse an ASS ``&HAABBGGRR`` colour back (the inverse of ``to_ass``)."""
    match = _ASS.fullmatch(value.strip())
    if match is None:
        raise ValueError(f"ASS colour must look like &HAABBGGRR, got {value!r}")
    digits = match.group(1)
    alpha, blue, green, red = (int(digits[k : k + 2], 16) for k in range(0, 8, 2))
    return Rgba(red, green, blue, 255 - alpha)


def hex_to_ass(value: str) -> str:
    """``#RRGGBB[AA]`` straight to ``&HAABBGGRR``."""
    return to_ass(parse_hex_color(value))


@dataclass(frozen=True)
class SubtitleStyle:
    """How subtitles look when rendered (ASS output and burned-in video).

    Field names are the API's ``subtitle_*`` parameters without the prefix.

    Attributes:
        font: Font family name (``subtitle_font``); must be installed where
            the video is rendered, or the renderer substitutes one.
        size: Font size in pixels of the video height (``subtitle_size``);
            the ASS canvas is set to the video size so pixels mean pixels.
        color: Text colour, ``#RRGGBB`` or ``#RRGGBBAA`` (``subtitle_color``).
        outline: Stroke colour (``subtitle_outline``); ``""`` for no stroke.
        outline_width: Stroke width in pixels, 1.0 to 4.0
            (``subtitle_outline_width``).
        background: Box colour behind the text with alpha, e.g. ``#00000080``
            (``subtitle_bg``); None or ``""`` for no box. ASS cannot draw a box and a
            stroke together, so a background replaces the stroke.
        position: ``bottom``, ``top`` or ``middle`` (``subtitle_position``).
        original_scale: Size of the source-language block in bilingual
            output, relative to ``size``.
    """

    font: str = DEFAULT_FONT
    size: int = DEFAULT_FONT_SIZE
    color: str = DEFAULT_TEXT_COLOR
    outline: str = DEFAULT_OUTLINE_COLOR
    outline_width: float = DEFAULT_OUTLINE_WIDTH
    background: str | None = None
    position: str = DEFAULT_POSITION
    original_scale: float = 0.75

    def __post_init__(self) -> None:
        if not isinstance(self.font, str) or not self.font.strip() or "," in self.font:
            raise ValueError(f"font must be a non-empty font name without commas, got {self.font!r}")
        if isinstance(self.size, bool) or not isinstance(self.size, int) or not 1 <= self.size <= 500:
            raise ValueError(f"size must be an integer number of pixels 1..500, got {self.size!r}")
        parse_hex_color(self.color, "color")
        if self.outline:
            parse_hex_color(self.outline, "outline")
        if not MIN_OUTLINE_WIDTH <= self.outline_width <= MAX_OUTLINE_WIDTH:
            raise ValueError(
                f"outline_width must be between {MIN_OUTLINE_WIDTH} and {MAX_OUTLINE_WIDTH}, got {self.outline_width!r}"
            )
        if self.background:
            parse_hex_color(self.background, "background")
        if self.position not in POSITIONS:
            raise ValueError(f"position must be one of {', '.join(POSITIONS)}, got {self.position!r}")
        if not 0.3 <= self.original_scale <= 1.0:
            raise ValueError(f"original_scale must be between 0.3 and 1.0, got {self.original_scale!r}")

    @property
    def alignment(self) -> int:
        """ASS numpad alignment of ``position``."""
        return ALIGNMENT[self.position]
