"""Choosing cue boundaries: a shortest-path search over break positions.

Every way of cutting the token stream into cues that respect the hard limits
(lines, characters, duration, speaker turns) is considered, and the cheapest
is kept. Costs encode the soft preferences:

* end a cue at the end of a sentence or at a pause, else at a clause, else
  anywhere (a cue ending mid-phrase costs most);
* do not keep a cue up across a pause (the text would hang over silence);
* fewer cues (each costs 1), so lines are well filled;
* avoid cues too short to read, and tiny leftover cues;
* never end a cue on a speaker label (only allowed, at a high cost, where a
  one-line cue cannot hold the label and the next word).

The search is linear in the number of tokens times the tokens one cue can
hold (at most ``max_lines * max_chars``), so an hour of speech takes well
under a second.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.tokens import Token
from pipelines.subtitles.wrap import LineFitter

CUE_COST = 1.0
BREAK_ANYWHERE = 3.0
BREAK_CLAUSE = 1.0
BREAK_SEGMENT = 1.0
BREAK_PAUSE = 0.25
INSIDE_SENTENCE_END = 0.6
INSIDE_PAUSE = 1.5
SHORT_TEXT = 1.0
SHORT_TIME = 3.0
#: With frame-accurate timing a cue under the minimum duration breaks a rule: merge it rather than show it.
SHORT_TIME_FRAMES = 8.0
GLUE = 20.0
EPSILON = 1e-9


def group(tokens: Sequence[Token], options: SegmentationOptions) -> list[tuple[int, int]]:
    """Cue boundaries as (first, last + 1) token index pairs covering every token."""
    n = len(tokens)
    costs = _Costs(tokens, options)
    best = [math.inf] * (n + 1)
    back = [0] * (n + 1)
    best[0] = 0.0
    for i in range(n):
        if best[i] < math.inf:
            _relax(tokens, i, options, costs, best, back)
    cuts, j = [], n
    while j > 0:
        cuts.append((back[j], j))
        j = back[j]
    return cuts[::-1]


class _Costs:
    """Per-position costs, computed once: they depend on one boundary only."""

    def __init__(self, tokens: Sequence[Token], options: SegmentationOptions) -> None:
        n = len(tokens)
        gaps = [tokens[j + 1].start - tokens[j].end for j in range(n - 1)] + [math.inf]
        self.end = [_break_cost(tokens, j, gaps[j], options) for j in range(n)]
        self.inside = [_inside_cost(tokens, j, gaps[j], options) for j in range(n)]
        self.next_start = [t.start for t in tokens[1:]] + [math.inf]


def _relax(
    tokens: Sequence[Token],
    i: int,
    options: SegmentationOptions,
    costs: _Costs,
    best: list[float],
    back: list[int],
) -> None:
    """Try every cue that starts at token ``i``."""
    fitter = LineFitter(options.max_chars, options.max_lines)
    limit = tokens[i].start + options.max_duration + EPSILON
    short_text = min(options.max_chars // 3, 12)
    short_time = SHORT_TIME if options.fps is None else SHORT_TIME_FRAMES
    inside = 0.0
    chars = 0
    n = len(tokens)
    for j in range(i, n):
        token = tokens[j]
        if j > i and (token.hard or token.end > limit or not fitter.add(token)):
            break
        if j == i:
            fitter.add(token)
        chars += token.size
        cost = best[i] + CUE_COST + inside + costs.end[j]
        if token.glue and j + 1 < n:
            cost += GLUE
        if costs.next_start[j] - tokens[i].start < options.min_duration:
            cost += short_time
        if chars < short_text and j + 1 < n:
            cost += SHORT_TEXT
        if cost < best[j + 1]:
            best[j + 1] = cost
            back[j + 1] = i
        inside += costs.inside[j]


def _break_cost(tokens: Sequence[Token], j: int, gap: float, options: SegmentationOptions) -> float:
    """Cost of ending a cue after token ``j``."""
    if j + 1 >= len(tokens) or tokens[j + 1].hard:
        return 0.0
    token = tokens[j]
    cost = BREAK_ANYWHERE
    if token.sentence_end:
        cost = 0.0
    elif token.clause_end:
        cost = BREAK_CLAUSE
    if token.boundary:
        cost = min(cost, BREAK_SEGMENT)
    if gap >= 2 * options.pause:
        cost = 0.0
    elif gap >= options.pause:
        cost = min(cost, BREAK_PAUSE)
    return cost


def _inside_cost(tokens: Sequence[Token], j: int, gap: float, options: SegmentationOptions) -> float:
    """Cost of keeping the boundary after token ``j`` inside a cue."""
    if j + 1 >= len(tokens):
        return 0.0
    cost = INSIDE_SENTENCE_END if tokens[j].sentence_end else 0.0
    if gap >= options.pause:
        cost += INSIDE_PAUSE + gap
    return cost
