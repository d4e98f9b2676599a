"""``quality_score``: the judge encoder's similarity, calibrated to the contract's grade bands.

Contract 2.2 grades a clone 0.90–1.0 excellent, 0.80–0.89 good, 0.70–0.79
fair, below 0.70 poor. The score is the judge encoder's cosine similarity
between the voice's synthesized speech and the (denoised) sample, mapped by
a monotone piecewise-linear calibration whose anchors are measured
distributions of that encoder on real speech (docs/voice-cloning.md):

* a recording and *other* recordings of the same speaker score the anchor of
  "excellent" (the voice is indistinguishable from the speaker to the judge);
* recordings of *different* speakers score at most the anchor of "poor".

Between the anchors the map is linear; it never raises a score above what the
judge measured beyond the same-speaker anchor, and it is never a constant.
"""

from __future__ import annotations

import numpy as np

#: (judge cosine, score) anchors, increasing in both coordinates.
ANCHORS: tuple[tuple[float, float], ...] = ((0.0, 0.0), (0.60, 0.50), (0.75, 0.70), (0.82, 0.80), (0.88, 0.90), (1.0, 1.0))


def calibrated_score(judge_similarity: float) -> float:
    """The contract score (0–1, three decimals) of a judge cosine similarity."""
    xs, ys = zip(*ANCHORS)
    return round(float(np.interp(np.clip(judge_similarity, 0.0, 1.0), xs, ys)), 3)


def grade(score: float) -> str:
    """The contract's grade of a score."""
    if score >= 0.90:
        return "excellent"
    if score >= 0.80:
        return "good"
    if score >= 0.70:
        return "fair"
    return "poor"
