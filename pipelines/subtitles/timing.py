"""Display timing: stretch cues that are too short or too dense to read.

Speech timing says when words are spoken; a cue must also stay up long
enough to be read. Each cue aims for ``max(min_duration, chars / max_cps)``
seconds (capped at ``max_duration``). It first grows into the silence after
it, then into the silence before it, and never into a neighbouring cue: when
speech is continuous the cue keeps its spoken duration, because overlapping
subtitles are worse than fast ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pipelines.subtitles.options import SegmentationOptions


def target_duration(chars: int, options: SegmentationOptions) -> float:
    """How long a cue of ``chars`` visible characters should ideally stay up."""
    return min(max(options.min_duration, chars / options.max_cps), options.max_duration)


def settle(
    spans: Sequence[tuple[float, float]],
    chars: Sequence[int],
    options: SegmentationOptions,
    lower: float = 0.0,
    upper: float = math.inf,
) -> list[tuple[float, float]]:
    """Final (start, end) of each cue.

    Args:
        spans: Spoken (start, end) of each cue, in order, not overlapping.
        chars: Visible characters of each cue.
        options: Limits to apply.
        lower: No cue may start before this (media start, or the previous
            cue outside this batch).
        upper: No cue may end after this.

    Returns:
        One (start, end) per cue with ``start <= end`` and each end at or
        before the next start.
    """
    out: list[tuple[float, float]] = []
    for k, (start, end) in enumerate(spans):
        following = spans[k + 1][0] if k + 1 < len(spans) else upper
        previous = out[-1][1] if out else lower
        start = max(start, previous)
        end = max(min(end, following), start)
        goal = target_duration(chars[k], options)
        if end - start < goal:
            end = max(min(start + goal, following), end)
        if end - start < goal:
            start = min(max(end - goal, previous), start)
        out.append((start, end))
    return out
