"""Shared last steps of layout: speaker labels, cue assembly, numbering."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from pipelines.subtitles.grouping import group
from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.text import display_length
from pipelines.subtitles.timing import settle
from pipelines.subtitles.tokens import Measure, Token, make
from pipelines.subtitles.types import Cue
from pipelines.subtitles.wrap import balance


def speaker_label(name: str, max_chars: int, measure: Measure = display_length) -> str:
    """``[Speaker 2]``, or ``[S2]`` where the long form does not fit a line."""
    label = f"[{name}]"
    if measure(label) <= max_chars:
        return label
    return "[S" + name.rsplit(" ", 1)[-1] + "]"


def with_labels(tokens: list[Token], max_chars: int, measure: Measure = display_length) -> list[Token]:
    """Insert a label token before the first token of each speaker turn."""
    out: list[Token] = []
    previous: str | None = None
    for token in tokens:
        if token.speaker is not None and token.speaker != previous:
            text = speaker_label(token.speaker, max_chars, measure)
            label = make(text, token.start, token.start, False, speaker=token.speaker, measure=measure)
            out.append(replace(label, hard=True, glue=True, label=True))
            token = replace(token, space=True)
        out.append(token)
        previous = token.speaker
    return out


def build_cues(
    tokens: Sequence[Token],
    options: SegmentationOptions,
    lower: float = 0.0,
    upper: float = math.inf,
) -> list[Cue]:
    """Group timed tokens into cues, wrap their lines and settle their timing.

    With frame-accurate timing (``options.fps``) the cues keep their speech times: display timing is a
    pass over the whole file (``frames.retime``), which ``translate_cues``/``translate_sentences`` run.
    """
    cuts = group(tokens, options)
    lines = [balance(tokens[i:j], options.max_chars, options.max_lines, options.language) for i, j in cuts]
    spoken = [(tokens[i].start, tokens[j - 1].end) for i, j in cuts]
    if options.fps is None:
        chars = [int(sum(options.chars(line) for line in cue_lines)) for cue_lines in lines]
        times = settle(spoken, chars, options, lower, upper)
    else:
        times = spoken  # tokens are timed inside [lower, upper] already
    return [
        Cue(
            index=k + 1,
            start=start,
            end=end,
            lines=cue_lines,
            speaker=tokens[i].speaker,
            label=tokens[i].text if tokens[i].label else "",
        )
        for k, ((i, _), cue_lines, (start, end)) in enumerate(zip(cuts, lines, times))
    ]


def renumber(cues: Sequence[Cue]) -> list[Cue]:
    """The same cues with ``index`` set to 1..N in order."""
    return [replace(cue, index=k + 1) for k, cue in enumerate(cues)]
