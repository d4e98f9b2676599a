"""Tokens: the unbreakable, timed pieces that cues and lines are built from.

A token is a word of a space-using script, one character (with its marks)
of a no-space script, a piece of a word too long for a line, or a speaker
label. ASR words and plain text (translations) both become tokens, so one
layout algorithm serves both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from pipelines.subtitles.text import (
    display_length,
    ends_clause,
    ends_sentence,
    hard_split,
    needs_space,
    split_units,
)

#: The width of a text in line units (``display_length``, or half-width units for Japanese).
Measure = Callable[[str], int]


@dataclass(frozen=True)
class Token:
    """One layout unit.

    Attributes:
        text: The characters shown, without surrounding spaces.
        start: Start time in seconds.
        end: End time in seconds.
        space: Whether a space separates it from the previous token on the
            same line.
        size: ``display_length(text)``, cached.
        speaker: Speaker display name, or None.
        hard: A cue must start here (speaker change).
        glue: No cue may end here (a speaker label stays with its words).
        label: This token is a speaker label.
        boundary: The ASR ended a segment here: a fair place for a cue break.
    """

    text: str
    start: float = 0.0
    end: float = 0.0
    space: bool = True
    size: int = 0
    speaker: str | None = None
    hard: bool = False
    glue: bool = False
    label: bool = False
    boundary: bool = False

    @property
    def sentence_end(self) -> bool:
        return ends_sentence(self.text)

    @property
    def clause_end(self) -> bool:
        return ends_clause(self.text)


def make(
    text: str,
    start: float,
    end: float,
    space: bool,
    speaker: str | None = None,
    boundary: bool = False,
    measure: Measure = display_length,
) -> Token:
    """A token with its size computed (``measure``: the line width of a text, ``display_length`` by default)."""
    return Token(text, start, end, space, measure(text), speaker, boundary=boundary)


def explode(token: Token, max_chars: int, measure: Measure = display_length) -> list[Token]:
    """Split a token into units, hard-splitting any unit wider than a line.

    Unit times are interpolated by character count inside the token's span.
    """
    pieces: list[str] = []
    for unit in split_units(token.text):
        pieces.extend(hard_split(unit, max_chars, measure) if measure(unit) > max_chars else [unit])
    if len(pieces) <= 1:
        return [replace(token, size=measure(token.text))]
    weights = [max(measure(p), 1) for p in pieces]
    total, done, out = sum(weights), 0, []
    span = token.end - token.start
    for k, (piece, weight) in enumerate(zip(pieces, weights)):
        start = token.start + span * done / total
        done += weight
        end = token.start + span * done / total
        last = k == len(pieces) - 1
        out.append(
            replace(
                token,
                text=piece,
                start=start,
                end=end,
                space=token.space if k == 0 else False,
                size=measure(piece),
                glue=token.glue and last,
                boundary=token.boundary and last,
            )
        )
    return out


def text_tokens(text: str, max_chars: int, measure: Measure = display_length) -> list[Token]:
    """Untimed tokens of plain text; whitespace in ``text`` marks word boundaries."""
    out: list[Token] = []
    for k, word in enumerate(text.split()):
        out.extend(explode(make(word, 0.0, 0.0, k > 0, measure=measure), max_chars, measure))
    return out


def spread(tokens: Sequence[Token], spans: Sequence[tuple[float, float]]) -> list[Token]:
    """Give tokens times proportional to their length across speech spans.

    ``spans`` are the intervals where the text is spoken (one per source
    cue); time in the gaps between spans is skipped, so a long text split
    across several cues is not shown during silence.
    """
    weights = [max(t.size, 1) + (1 if t.space else 0) for t in tokens]
    total = sum(weights) or 1
    speech = sum(max(e - s, 0.0) for s, e in spans)
    out, done = [], 0
    for token, weight in zip(tokens, weights):
        start = _locate(spans, speech * done / total)
        done += weight
        end = _locate(spans, speech * done / total, after=False)
        out.append(replace(token, start=start, end=max(end, start)))
    return out


def _locate(spans: Sequence[tuple[float, float]], offset: float, after: bool = True) -> float:
    """Media time of ``offset`` seconds of speech into ``spans``.

    An offset that falls exactly on the seam between two spans maps to the
    next span's start when ``after`` (a token starting there) and to the
    previous span's end otherwise (a token ending there).
    """
    for k, (start, end) in enumerate(spans):
        length = max(end - start, 0.0)
        is_last = k == len(spans) - 1
        if offset < length or (offset <= length and (not after or is_last)):
            return start + offset
        offset -= length
    return spans[-1][1] if spans else 0.0


@dataclass(frozen=True)
class Timed:
    """An ASR word reduced to what layout reads.

    Attributes:
        start: Start time in seconds.
        end: End time in seconds.
        text: The word as decoded, leading space included when the engine gives one.
        speaker: Speaker display name, or None.
        segment_start: The word opens an ASR segment (a phrase boundary).
    """

    start: float
    end: float
    text: str
    speaker: str | None = None
    segment_start: bool = False


def word_tokens(words: Sequence[Timed], max_chars: int, max_duration: float, measure: Measure = display_length) -> list[Token]:
    """Tokens of ASR words, in time order, with repaired timings.

    Repairs: words are sorted by start and negative times raised to 0; an
    end before its start is raised to the start; a word overlapping the next
    is cut at the next word's start; a word longer than ``max_duration`` (a
    decoder artefact) is cut to it, so every single token fits in one cue.

    Spacing: when any word carries a leading space (Whisper style) the
    engine's spacing is kept as given; otherwise spaces are inferred from the
    scripts of neighbouring words.
    """
    items = sorted((w for w in words if w.text.strip()), key=lambda w: w.start)
    raw = _raw_spacing(items)
    out: list[Token] = []
    prev = ""
    for k, word in enumerate(items):
        start = max(word.start, 0.0)
        following = max(items[k + 1].start, 0.0) if k + 1 < len(items) else math.inf
        end = min(max(word.end, start), following, start + max_duration)
        text = word.text.strip()
        space = word.text[:1].isspace() if raw[k] else needs_space(prev, text)
        if raw[k] and word.segment_start and not space:
            space = needs_space(prev, text)
        boundary = k + 1 < len(items) and items[k + 1].segment_start
        token = make(text, start, end, space, speaker=word.speaker, boundary=boundary, measure=measure)
        out.extend(explode(token, max_chars, measure))
        prev = text
    return out


def _raw_spacing(items: Sequence[Timed]) -> list[bool]:
    """Per word: does its ASR segment carry explicit (Whisper-style) spacing?

    Decided per segment so that words synthesised from segment text and
    words from an engine that strips spaces can be mixed in one stream.
    """
    flags: list[bool] = []
    run: list[Timed] = []

    def close() -> None:
        explicit = any(w.text[:1].isspace() for w in run)
        flags.extend([explicit] * len(run))
        run.clear()

    for word in items:
        if word.segment_start and run:
            close()
        run.append(word)
    close()
    return flags
