"""Speech to cues: the entry points of subtitle segmentation.

``segment_words`` and ``segment_segments`` turn ASR output into cues in the
source language; ``translate_cues`` and ``translate_sentences`` (re-exported
from ``translation``) lay translated text back onto those cues' timing.
The rules (limits, preferences, timing) are documented on
``SegmentationOptions``, in ``grouping``, ``wrap`` and ``timing``, and in
``docs/subtitles.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from pipelines.subtitles.layout import build_cues, renumber, speaker_label, with_labels
from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.tokens import Timed, Token, make, spread, word_tokens
from pipelines.subtitles.translation import (
    cue_text,
    fit_text,
    group_sentences,
    translate_cues,
    translate_sentences,
)
from pipelines.subtitles.types import Cue


class WordLike(Protocol):
    """Anything shaped like ``types.Word`` (the ASR engines' ``Word`` included)."""

    start: float
    end: float
    text: str
    speaker: str | None


class SegmentLike(Protocol):
    """Anything shaped like ``types.Segment``."""

    start: float
    end: float
    text: str
    words: Sequence[WordLike]
    speaker: str | None


def segment_words(words: Sequence[WordLike], options: SegmentationOptions | None = None) -> list[Cue]:
    """Cut a stream of timed words into cues.

    Args:
        words: ASR words of the whole media, any order (they are sorted).
        options: Layout limits; defaults to the API defaults.

    Returns:
        Cues numbered from 1, in time order, never overlapping.
    """
    options = options or SegmentationOptions()
    timed = [Timed(w.start, w.end, w.text, getattr(w, "speaker", None)) for w in words]
    return _cues(_speakers(timed, options), options)


def segment_segments(segments: Sequence[SegmentLike], options: SegmentationOptions | None = None) -> list[Cue]:
    """Cut ASR segments into cues, using their words when present.

    A segment without words has its text spread over its span by character
    count. Segment ends count as fair break points; a segment's ``speaker``
    applies to its words that carry none.
    """
    options = options or SegmentationOptions()
    timed: list[Timed] = []
    for segment in segments:
        timed.extend(_segment_words(segment))
    return _cues(_speakers(timed, options), options)


def _segment_words(segment: SegmentLike) -> list[Timed]:
    if segment.words:
        return [
            Timed(w.start, w.end, w.text, getattr(w, "speaker", None) or segment.speaker, k == 0)
            for k, w in enumerate(segment.words)
        ]
    tokens = spread(_plain_words(segment.text), [(segment.start, segment.end)])
    return [Timed(t.start, t.end, (" " if k else "") + t.text, segment.speaker, k == 0) for k, t in enumerate(tokens)]


def _plain_words(text: str) -> list[Token]:
    return [make(word, 0.0, 0.0, k > 0) for k, word in enumerate(text.split())]


def _speakers(timed: list[Timed], options: SegmentationOptions) -> list[Timed]:
    """Replace speaker ids by display names; words without one inherit the last."""
    if not options.speaker_labels:
        return [replace(w, speaker=None) for w in timed]
    names: dict[str, str] = {}
    current: str | None = None
    out = []
    for word in sorted(timed, key=lambda w: w.start):
        if word.speaker is not None:
            current = names.setdefault(word.speaker, f"Speaker {len(names) + 1}")
        out.append(replace(word, speaker=current))
    return out


def _cues(timed: list[Timed], options: SegmentationOptions) -> list[Cue]:
    tokens = word_tokens(timed, options.max_chars, options.max_duration, options.measure)
    if options.speaker_labels:
        tokens = with_labels(tokens, options.max_chars, options.measure)
    return build_cues(tokens, options)


__all__ = [
    "SegmentationOptions",
    "cue_text",
    "fit_text",
    "group_sentences",
    "renumber",
    "segment_segments",
    "segment_words",
    "speaker_label",
    "translate_cues",
    "translate_sentences",
]
