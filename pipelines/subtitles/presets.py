"""Timed-text presets: line length, reading speed and durations per language (docs/timed-text.md).

``standard`` (the default) is the Netflix Timed Text Style Guide: characters per line and reading speed
from its per-language guides, at most 2 lines, 5/6 s to 7 s on screen, frame-accurate timing (a 2-frame
minimum gap, gaps of half a second or less closed, shot changes respected). ``broadcast`` keeps those
rules at the slower reading speed of EBU/BBC practice (160-180 words per minute) and 37-character lines
where the script is alphabetic. ``legacy`` is the single preset every language had before: 42 characters,
20 characters per second, 0.7 s minimum, the request's ``subtitle_max_duration`` (5.0 s), no frame rules.

Characters are counted as a reader sees them (``text.display_length``: combining marks are free, a CJK
character is one); Japanese counts a half-width character (Latin letters, digits, half-width kana) as 0.5,
so its limits are kept in half-width units internally (``Preset.half_width``). Reading speed counts every
displayed character, spaces and punctuation included, line breaks excluded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from pipelines.subtitles.profanity import primary_language

PresetName = Literal["standard", "broadcast", "legacy"]
PRESETS: tuple[str, ...] = get_args(PresetName)
DEFAULT_PRESET: PresetName = "standard"

#: Characters per line by primary language (Netflix per-language guides); others: ``DEFAULT_LINE``.
LINE_CHARS: dict[str, int] = {"zh": 16, "ko": 16, "ja": 13, "th": 35}
DEFAULT_LINE = 42
#: Reading speed in characters per second by primary language (Netflix, adult programmes); others: ``DEFAULT_CPS``.
READING_CPS: dict[str, float] = {"en": 20.0, "zh": 9.0, "ko": 12.0, "ja": 4.0, "hi": 22.0, "ar": 20.0, "th": 17.0}
DEFAULT_CPS = 17.0
#: ``broadcast``: 160-180 words per minute is about 15 characters per second in alphabetic scripts
#: (5.5 characters and a space per word), 17 for English's shorter words; other scripts are slowed alike.
BROADCAST_SCALE = 15.0 / 17.0
BROADCAST_CPS: dict[str, float] = {"en": 17.0}
BROADCAST_LINE = 37
MIN_DURATION = 5.0 / 6.0
MAX_DURATION = 7.0
MAX_LINES = 2
LEGACY_LINE = 42
LEGACY_CPS = 20.0
LEGACY_MIN_DURATION = 0.7
LEGACY_MAX_DURATION = 5.0
#: Languages whose lines are measured in half-width units (a half-width character counts 0.5).
HALF_WIDTH_LANGUAGES = frozenset({"ja"})


@dataclass(frozen=True)
class Preset:
    """The limits one task's subtitles are laid out and checked against.

    Attributes:
        name: ``standard``, ``broadcast`` or ``legacy``.
        language: the primary language code the limits are for.
        max_chars: characters per line (Japanese: full-width characters).
        max_cps: reading speed, characters per second.
        min_duration: shortest time on screen, seconds.
        max_duration: longest time on screen, seconds.
        max_lines: lines per cue.
        half_width: a half-width character counts 0.5 (Japanese).
        frame_rules: frame-accurate timing (2-frame gaps, chaining, shot changes); False for ``legacy``.
    """

    name: str
    language: str
    max_chars: int
    max_cps: float
    min_duration: float
    max_duration: float
    max_lines: int = MAX_LINES
    half_width: bool = False
    frame_rules: bool = True

    def public(self) -> dict[str, object]:
        """The preset as the task's ``qc`` report shows it."""
        return {
            "name": self.name,
            "language": self.language,
            "max_chars_per_line": self.max_chars,
            "max_lines": self.max_lines,
            "max_cps": self.max_cps,
            "min_duration": round(self.min_duration, 3),
            "max_duration": self.max_duration,
        }


def preset_for(
    language: str,
    name: str = DEFAULT_PRESET,
    *,
    max_chars: int | None = None,
    max_duration: float | None = None,
) -> Preset:
    """The preset of ``language``; ``max_chars`` / ``max_duration`` given by the request win over it."""
    if name not in PRESETS:
        raise ValueError(f"subtitle_preset must be one of {', '.join(PRESETS)}, got {name!r}")
    lang = primary_language(language)
    if name == "legacy":
        chars, cps, shortest, longest = LEGACY_LINE, LEGACY_CPS, LEGACY_MIN_DURATION, LEGACY_MAX_DURATION
    else:
        chars = LINE_CHARS.get(lang, DEFAULT_LINE)
        cps = READING_CPS.get(lang, DEFAULT_CPS)
        if name == "broadcast":
            chars = min(chars, BROADCAST_LINE) if lang not in LINE_CHARS else chars
            cps = BROADCAST_CPS.get(lang, round(cps * BROADCAST_SCALE, 1))
        shortest, longest = MIN_DURATION, MAX_DURATION
    if max_chars is not None:
        chars = max_chars
    if max_duration is not None:
        longest = max_duration
        shortest = min(shortest, longest)
    return Preset(
        name=name,
        language=lang,
        max_chars=chars,
        max_cps=cps,
        min_duration=shortest,
        max_duration=longest,
        half_width=lang in HALF_WIDTH_LANGUAGES,
        frame_rules=name != "legacy",
    )
