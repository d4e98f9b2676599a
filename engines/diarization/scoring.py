"""Scoring a diarization against reference turns: speech-time accuracy and diarization error rate.

Both work on a 10 ms grid over the reference's extent and the hypothesis.
Hypothesis speakers are mapped one-to-one to reference speakers so that the
most reference speech time agrees (an exhaustive search for up to 8 speakers,
greedy beyond). No forgiveness collar is applied.

* **accuracy**: share of reference speech time whose hypothesis speaker, after
  mapping, is the reference speaker (missed speech counts as wrong).
* **DER**: (missed + false alarm + confusion) / reference speech time, where
  missed is reference speech with no hypothesis speaker, false alarm is
  hypothesis speech outside the reference, and confusion is speech labelled
  with a mapped speaker other than the reference one. Set ``scored_only`` when
  the reference lists only some of the speech (known turns): false alarms are
  then not counted.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

STEP = 0.01

Turns = Iterable[tuple[float, float, str]]


@dataclass(frozen=True)
class Score:
    """Speech-time accuracy, DER and its parts, in seconds unless a ratio."""

    accuracy: float
    der: float
    speech: float
    missed: float
    false_alarm: float
    confusion: float
    mapping: dict[str, str]


def score(reference: Turns, hypothesis: Turns, *, scored_only: bool = False) -> Score:
    """Compare hypothesis turns with reference turns (``(start, end, speaker)`` in seconds)."""
    ref, hyp = list(reference), list(hypothesis)
    end = max([e for _, e, _ in ref + hyp] or [0.0])
    ref_names, ref_grid = _grid(ref, end)
    hyp_names, hyp_grid = _grid(hyp, end)
    overlap = np.zeros((len(ref_names), len(hyp_names)))
    for r in range(len(ref_names)):
        for h in range(len(hyp_names)):
            overlap[r, h] = np.sum((ref_grid == r) & (hyp_grid == h)) * STEP
    pairs = _best_mapping(overlap)
    speech = float(np.sum(ref_grid >= 0) * STEP)
    correct = sum(overlap[r, h] for r, h in pairs)
    missed = float(np.sum((ref_grid >= 0) & (hyp_grid < 0)) * STEP)
    false_alarm = 0.0 if scored_only else float(np.sum((ref_grid < 0) & (hyp_grid >= 0)) * STEP)
    confusion = speech - missed - correct
    return Score(
        accuracy=correct / speech if speech else 1.0,
        der=(missed + false_alarm + confusion) / speech if speech else 0.0,
        speech=speech,
        missed=missed,
        false_alarm=false_alarm,
        confusion=confusion,
        mapping={hyp_names[h]: ref_names[r] for r, h in pairs},
    )


def _grid(turns: Sequence[tuple[float, float, str]], end: float) -> tuple[list[str], np.ndarray]:
    """Speaker names, and each 10 ms cell's speaker index (-1: nobody; later turns win on overlap)."""
    names = list(dict.fromkeys(speaker for _, _, speaker in turns))
    grid = np.full(round(end / STEP) + 1, -1, dtype=np.int64)
    for start, stop, speaker in turns:
        grid[round(start / STEP) : round(stop / STEP)] = names.index(speaker)
    return names, grid


def _best_mapping(overlap: np.ndarray) -> list[tuple[int, int]]:
    """``(reference, hypothesis)`` index pairs, one-to-one, maximising the summed overlap."""
    n_ref, n_hyp = overlap.shape
    if n_ref == 0 or n_hyp == 0:
        return []
    if max(n_ref, n_hyp) <= 8:
        if n_ref <= n_hyp:
            options = ([(r, h) for r, h in enumerate(perm)] for perm in itertools.permutations(range(n_hyp), n_ref))
        else:
            options = ([(r, h) for h, r in enumerate(perm)] for perm in itertools.permutations(range(n_ref), n_hyp))
        return max(options, key=lambda pairs: sum(overlap[r, h] for r, h in pairs))
    pairs, used_r, used_h = [], set(), set()
    for flat in np.argsort(-overlap, axis=None):
        r, h = divmod(int(flat), n_hyp)
        if r not in used_r and h not in used_h and overlap[r, h] > 0:
            pairs.append((r, h))
            used_r.add(r)
            used_h.add(h)
    return pairs
