"""Laying translated text onto the timing of source cues.

A translation is usually longer or shorter than its source and has its own
word boundaries, so it is re-wrapped from scratch under the same limits. The
cue keeps its timing; when the translation needs more than ``max_lines``
lines the cue is split in time, each part getting time in proportion to its
share of the text, with breaks preferred at the translation's punctuation.

In bilingual output each part also carries the same share of the source
text (by character count, order kept), so the source block never exceeds
the line limit either.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace

from pipelines.subtitles.frames import retime
from pipelines.subtitles.layout import build_cues, renumber
from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.text import ends_sentence, join_lines
from pipelines.subtitles.tokens import Token, make, spread, text_tokens
from pipelines.subtitles.types import Cue
from pipelines.subtitles.wrap import balance, join

Span = tuple[float, float]


def cue_text(cue: Cue) -> str:
    """The cue's text as one line, without its speaker label: what to translate."""
    text = join_lines(cue.lines)
    if cue.label and text.startswith(cue.label):
        text = text[len(cue.label) :].lstrip()
    return text


def fit_text(
    text: str,
    start: float,
    end: float,
    options: SegmentationOptions | None = None,
    *,
    original: str = "",
    label: str = "",
    speaker: str | None = None,
) -> list[Cue]:
    """Lay ``text`` over ``[start, end]``: one cue if it fits, else several.

    Args:
        text: The text to show (typically one cue's translation).
        start: Display start of the span.
        end: Display end of the span.
        options: Layout limits (those used for the source cues).
        original: Source text to carry in ``original_lines`` (bilingual).
        label: Speaker label shown at the start of the first cue (both blocks).
        speaker: Speaker display name stored on every cue.

    Returns:
        Cues tiling ``[start, end]``, numbered from 1; empty when ``text``
        is blank.
    """
    return _layout(text, [(start, end)], options or SegmentationOptions(), original, label, speaker)


def translate_cues(
    cues: Sequence[Cue],
    translations: Sequence[str],
    options: SegmentationOptions | None = None,
    *,
    bilingual: bool = False,
    original_options: SegmentationOptions | None = None,
) -> list[Cue]:
    """Replace each cue's text by its translation (one translation per cue).

    A cue whose translation is blank is dropped, except in bilingual mode,
    where it keeps its source lines and shows no translation. In bilingual
    mode the source block is wrapped under ``original_options`` (the source
    language's limits; default ``options``).
    """
    options = options or SegmentationOptions()
    return _displayed(_per_cue(cues, translations, options, bilingual, original_options or options), options)


def _per_cue(
    cues: Sequence[Cue],
    translations: Sequence[str],
    options: SegmentationOptions,
    bilingual: bool,
    original_options: SegmentationOptions,
) -> list[Cue]:
    if len(cues) != len(translations):
        raise ValueError(f"got {len(translations)} translations for {len(cues)} cues")
    out: list[Cue] = []
    for cue, text in zip(cues, translations):
        original = cue_text(cue) if bilingual else ""
        parts = _layout(text, [(cue.start, cue.end)], options, original, cue.label, cue.speaker, original_options)
        if not parts and bilingual:
            parts = [replace(cue, lines=(), original_lines=cue.lines)]
        out.extend(parts)
    return out


def group_sentences(cues: Sequence[Cue], max_cues: int = 4) -> list[tuple[Cue, ...]]:
    """Group consecutive cues into sentences, for translation with full context.

    A group ends after a cue ending a sentence, before a speaker label, or
    after ``max_cues`` cues (speech recognised without punctuation would
    otherwise form one endless group).
    """
    groups: list[tuple[Cue, ...]] = []
    current: list[Cue] = []
    for cue in cues:
        if current and (cue.label or len(current) >= max_cues):
            groups.append(tuple(current))
            current = []
        current.append(cue)
        if ends_sentence(cue.lines[-1] if cue.lines else ""):
            groups.append(tuple(current))
            current = []
    if current:
        groups.append(tuple(current))
    return groups


def translate_sentences(
    groups: Sequence[Sequence[Cue]],
    translations: Sequence[str],
    options: SegmentationOptions | None = None,
    *,
    bilingual: bool = False,
    original_options: SegmentationOptions | None = None,
) -> list[Cue]:
    """Lay one translation per sentence group over the group's cues.

    Monolingual: the translation is re-cut over the group's speaking time
    (gaps between cues skipped), with breaks at its own punctuation.
    Bilingual: the translation is shared among the group's cues by
    proportion, so each source cue keeps exactly its own source lines.
    """
    laid = layout_groups(groups, translations, options, bilingual=bilingual, original_options=original_options)
    return renumber([cue for cues in laid for cue in cues])


def layout_groups(
    groups: Sequence[Sequence[Cue]],
    translations: Sequence[str],
    options: SegmentationOptions | None = None,
    *,
    bilingual: bool = False,
    original_options: SegmentationOptions | None = None,
    timed: bool = True,
) -> list[list[Cue]]:
    """``translate_sentences`` with the cues of each group kept apart (display timing over all of them).

    ``timed=False`` leaves frame-timed cues at their speech times (source cues a revision lays out again).
    """
    if len(groups) != len(translations):
        raise ValueError(f"got {len(translations)} translations for {len(groups)} groups")
    options = options or SegmentationOptions()
    original_options = original_options or options
    laid: list[list[Cue]] = []
    for cues, text in zip(groups, translations):
        if not cues:
            laid.append([])
        elif bilingual:
            laid.append(_per_cue(cues, _share(text, cues, options), options, True, original_options))
        else:
            spans = [(c.start, c.end) for c in cues]
            laid.append(_layout(text, spans, options, "", cues[0].label, cues[0].speaker))
    if options.fps is None or not timed:
        return laid
    retimed = iter(retime([cue for cues in laid for cue in cues], options))
    return [[next(retimed) for _ in cues] for cues in laid]


def _displayed(cues: list[Cue], options: SegmentationOptions) -> list[Cue]:
    """The cues numbered, with frame-accurate display timing when ``options.fps`` is set."""
    return renumber(retime(cues, options) if options.fps is not None else cues)


def _share(text: str, cues: Sequence[Cue], options: SegmentationOptions) -> list[str]:
    """Split ``text`` among ``cues`` in proportion to their durations."""
    tokens = text_tokens(text, options.max_chars, options.measure)
    durations = [max(c.end - c.start, 0.0) for c in cues]
    weights = durations if sum(durations) > 0 else [1.0] * len(cues)
    parts: list[list[Token]] = [[] for _ in cues]
    for token, index in zip(tokens, _portions(_weights(tokens), weights)):
        parts[index].append(token)
    return [join(part) for part in parts]


def _weights(tokens: Sequence[Token]) -> list[float]:
    """Share of text each token represents (its characters plus its space)."""
    return [max(t.size, 1) + (1 if t.space else 0) for t in tokens]


def _portions(items: Sequence[float], bins: Sequence[float]) -> list[int]:
    """For each item, the bin holding its midpoint when both are laid end to end.

    Items and bins are scaled to the same total, so the assignment keeps
    order and gives each bin the share of items its weight asks for.
    """
    total_items, total_bins = sum(items) or 1.0, sum(bins) or 1.0
    edges, acc = [], 0.0
    for weight in bins[:-1]:
        acc += weight / total_bins
        edges.append(acc)
    out, done = [], 0.0
    for weight in items:
        middle = (done + weight / 2) / total_items
        done += weight
        out.append(bisect.bisect_right(edges, middle))
    return out


def _with_label(tokens: list[Token], label: str, options: SegmentationOptions) -> list[Token]:
    """``tokens`` opened by a speaker label token (glued to what follows)."""
    if not label:
        return tokens
    head = replace(make(label, 0.0, 0.0, False, measure=options.measure), glue=True, label=True)
    if not tokens:
        return [head]
    return [head, replace(tokens[0], space=True), *tokens[1:]]


def _layout(
    text: str,
    spans: Sequence[Span],
    options: SegmentationOptions,
    original: str,
    label: str,
    speaker: str | None,
    original_options: SegmentationOptions | None = None,
) -> list[Cue]:
    words = text_tokens(text, options.max_chars, options.measure)
    if not words:
        return []
    tokens = _timed(_with_label(words, label, options), spans, options)
    cues = build_cues(tokens, options, spans[0][0], spans[-1][1])
    cues = [replace(c, speaker=speaker, label=c.label if k == 0 else "") for k, c in enumerate(cues)]
    if original.strip():
        cues = _attach_original(cues, original, options, label, original_options or options)
    return cues


def _timed(tokens: list[Token], spans: Sequence[Span], options: SegmentationOptions) -> list[Token]:
    """Spread tokens over spans; cap any token straddling a gap at ``max_duration``."""
    timed = spread(tokens, spans)
    return [replace(t, end=min(t.end, t.start + options.max_duration)) for t in timed]


def _attach_original(
    cues: list[Cue], original: str, options: SegmentationOptions, label: str, source: SegmentationOptions
) -> list[Cue]:
    """Give each cue the share of the source text matching its share of the translation.

    The speaker label, if any, opens the first cue's source block as it
    opens its translation.
    """
    tokens = text_tokens(original, source.max_chars, source.measure)
    shares = [float(sum(options.measure(line) + 1 for line in c.lines)) for c in cues]
    shares[0] = max(shares[0] - options.measure(label), 1.0)
    parts: list[list[Token]] = [[] for _ in cues]
    for token, index in zip(tokens, _portions(_weights(tokens), shares)):
        parts[index].append(token)
    parts[0] = _with_label(parts[0], label, source)
    return [
        replace(cue, original_lines=balance(part, source.max_chars, source.max_lines, source.language))
        for cue, part in zip(cues, parts)
    ]


__all__ = [
    "cue_text",
    "fit_text",
    "group_sentences",
    "layout_groups",
    "translate_cues",
    "translate_sentences",
]
