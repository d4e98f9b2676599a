"""The cue that every subtitle reader hands back, the one error they raise, and the checks all of them share.

``subtitle_files`` re-exports :class:`InputCue` and :class:`BadSubtitleFile`; the format readers
(``subtitle_files`` for SubRip, WebVTT and ASS, ``subtitle_ttml`` for TTML) build cues through
:func:`timed_cue`, so a cue whose end is not after its start is refused the same way in every format.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Said when a file is in none of the formats read.
FORMATS_READ = "SubRip (.srt), WebVTT (.vtt), ASS or SSA (.ass, .ssa) and TTML (.ttml, .dfxp, .xml)"
#: The longest piece of a client's file quoted in an error message.
QUOTE_LIMIT = 60


@dataclass(frozen=True)
class InputCue:
    """One cue of an uploaded subtitle file, in plain text."""

    start: float  # seconds
    end: float  # seconds, > start
    text: str  # markup and speaker label removed, lines joined with "\n", stripped
    speaker: str | None  # from a label, an ASS actor or a WebVTT voice span
    line: int  # 1-based line of the cue's timing in the file


class BadSubtitleFile(ValueError):
    """A file that cannot be read as subtitles: a one-line message in the service's own words.

    ``line`` is the 1-based line of the first problem, or None when the problem is the file as a whole.
    """

    def __init__(self, line: int | None, problem: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {problem}" if line is not None else problem)


def quoted(text: str) -> str:
    """A piece of the client's file, on one line and short enough for a message."""
    flat = " ".join(text.split())
    return flat if len(flat) <= QUOTE_LIMIT else flat[: QUOTE_LIMIT - 1] + "…"


def tidy_lines(text: str) -> str:
    """Whitespace collapsed within each line, blank lines dropped, lines joined with "\\n"."""
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def timed_cue(start: float, end: float, text: str, speaker: str | None, line: int, written: str) -> InputCue | None:
    """The cue, or None when it has no text; ``written`` is how the file wrote its times, for the messages."""
    if not text:
        return None
    if start < 0:
        raise BadSubtitleFile(line, f"the cue starts before the video does ({quoted(written)}).")
    if end < start:
        raise BadSubtitleFile(line, f"the cue ends before it starts ({quoted(written)}).")
    if end == start:
        raise BadSubtitleFile(line, f"the cue ends the moment it starts ({quoted(written)}).")
    return InputCue(start=start, end=end, text=text, speaker=speaker, line=line)
