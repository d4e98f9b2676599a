"""Agglomerative clustering of speaker embeddings, and smoothing of the labelled timeline.

Clustering is average-linkage agglomeration on cosine distance (``1 - cosine``)
of unit-norm embeddings (SciPy's ``linkage``, O(n²) memory and time): every
window starts as its own cluster and the two clusters with the smallest mean
pairwise distance merge until either

* ``num_clusters`` clusters remain (the number of speakers is known), or
* the next merge would join clusters further apart than ``threshold`` (the
  number is estimated); clusters of fewer than ``min_cluster_size`` points are
  then folded into the nearest larger cluster (by centroid), so one odd window
  (a cough, a laugh, music) does not become a speaker, and at most
  ``max_clusters`` are kept.

More than ``max_points`` embeddings (over an hour of speech at the default
hop) are clustered on an evenly spaced subset; the rest join the nearest
centroid. Labels are ``0..k-1`` numbered by first appearance.

The smoothing helpers work on turns ``(start, end, label)``: adjacent turns of
one label merge, and turns shorter than a minimum go to their neighbours.
"""

from __future__ import annotations

import numpy as np

#: Average-linkage cosine distance above which two clusters are different speakers (tuned: docs/diarization.md).
DEFAULT_THRESHOLD = 0.55
DEFAULT_MAX_CLUSTERS = 32
MIN_CLUSTER_SIZE = 2
MAX_POINTS = 6000

Turn = tuple[float, float, int]


def cluster(
    embeddings: np.ndarray,
    *,
    num_clusters: int | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    max_clusters: int = DEFAULT_MAX_CLUSTERS,
    min_cluster_size: int = MIN_CLUSTER_SIZE,
    max_points: int = MAX_POINTS,
) -> np.ndarray:
    """Cluster labels ``0..k-1`` (by first appearance) for ``(n, d)`` embeddings.

    Args:
        embeddings: one row per window; normalised here.
        num_clusters: exactly this many clusters (``min(num_clusters, n)``); None to cut at ``threshold``.
        threshold: cosine distance (0..2) at which merging stops when ``num_clusters`` is None.
        max_clusters: the most clusters returned when estimating.
        min_cluster_size: smaller clusters are folded into the nearest larger one when estimating.
        max_points: cluster at most this many rows; the others join the nearest centroid.

    Returns:
        ``(n,)`` int labels; empty for no rows.
    """
    points = normalized(np.asarray(embeddings, dtype=np.float64))
    n = len(points)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if num_clusters is not None and num_clusters < 1:
        raise ValueError(f"num_clusters must be at least 1, got {num_clusters}")
    if n == 1:
        return np.zeros(1, dtype=np.int64)
    subset = np.linspace(0, n - 1, max_points).round().astype(np.int64) if n > max_points else np.arange(n)
    labels = _agglomerate(points[subset], num_clusters, threshold)
    if num_clusters is None:
        labels = _fold_small(points[subset], labels, min_cluster_size, max_clusters)
    if len(subset) < n:
        labels = nearest(points, centroids(points[subset], labels))
    return first_appearance(labels)


def _agglomerate(points: np.ndarray, num_clusters: int | None, threshold: float) -> np.ndarray:
    from scipy.cluster.hierarchy import fcluster, linkage

    if len(points) < 2:
        return np.zeros(len(points), dtype=np.int64)
    # Unit rows: cosine distance from a Gram matrix, clipped against rounding.
    single = points.astype(np.float32)  # the Gram matrix in float32: half the memory of float64
    condensed = np.clip(1.0 - _upper(single @ single.T).astype(np.float64), 0.0, 2.0)
    tree = linkage(condensed, method="average")
    if num_clusters is not None:
        raw = fcluster(tree, t=min(num_clusters, len(points)), criterion="maxclust")
    else:
        raw = fcluster(tree, t=threshold, criterion="distance")
    return np.asarray(raw, dtype=np.int64) - 1


def _upper(square: np.ndarray) -> np.ndarray:
    """The condensed (upper triangle, row-major) form of a square symmetric matrix."""
    rows, cols = np.triu_indices(len(square), k=1)
    return square[rows, cols]


def _fold_small(points: np.ndarray, labels: np.ndarray, min_size: int, max_clusters: int) -> np.ndarray:
    """Fold clusters under ``min_size`` points, then all but the ``max_clusters`` largest, into the nearest kept one."""
    ids, counts = np.unique(labels, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    kept = [int(ids[i]) for i in order[:max_clusters] if counts[i] >= min_size] or [int(ids[order[0]])]
    if len(kept) == len(ids):
        return labels
    centres = centroids(points, labels)
    kept_centres = np.stack([centres[k] for k in kept])
    moved = ~np.isin(labels, kept)
    out = labels.copy()
    out[moved] = np.asarray(kept)[nearest(points[moved], kept_centres)]
    return out


def normalized(rows: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero)."""
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


def centroids(points: np.ndarray, labels: np.ndarray) -> dict[int, np.ndarray]:
    """Unit mean of each cluster's rows, by label."""
    return {int(k): normalized(points[labels == k].mean(axis=0)) for k in np.unique(labels)}


def nearest(points: np.ndarray, centres: dict[int, np.ndarray] | np.ndarray) -> np.ndarray:
    """Index (into ``centres`` rows, or its keys for a dict) of the most cosine-similar centre per row."""
    if isinstance(centres, dict):
        keys = np.asarray(list(centres), dtype=np.int64)
        return keys[nearest(points, np.stack(list(centres.values())))]
    if len(points) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.asarray(np.argmax(points @ np.asarray(centres).T, axis=1), dtype=np.int64)


def first_appearance(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered ``0, 1, …`` in order of first appearance."""
    mapping: dict[int, int] = {}
    for label in labels.tolist():
        mapping.setdefault(label, len(mapping))
    return np.asarray([mapping[label] for label in labels.tolist()], dtype=np.int64)


# --------------------------------------------------------------------- smoothing


def median_filter(labels: np.ndarray, width: int) -> np.ndarray:
    """Each label replaced by the most common label in a centred window of ``width`` (odd) positions."""
    if width <= 1 or len(labels) < 2:
        return labels.copy()
    half = width // 2
    out = labels.copy()
    for i in range(len(labels)):
        window = labels[max(0, i - half) : i + half + 1]
        values, counts = np.unique(window, return_counts=True)
        best = values[counts == counts.max()]
        out[i] = labels[i] if labels[i] in best else best[0]
    return out


def merge_adjacent(turns: list[Turn], max_gap: float = 0.0) -> list[Turn]:
    """Consecutive turns of one label joined when at most ``max_gap`` seconds apart (turns sorted by start)."""
    out: list[Turn] = []
    for start, end, label in turns:
        if out and out[-1][2] == label and start - out[-1][1] <= max_gap:
            out[-1] = (out[-1][0], max(out[-1][1], end), label)
        else:
            out.append((start, end, label))
    return out


def absorb_short(turns: list[Turn], min_duration: float) -> list[Turn]:
    """Turns shorter than ``min_duration`` relabelled as a touching neighbour, shortest first.

    A turn takes the label of the longer of the neighbours it touches (no gap
    between them); a label's last remaining turn is never absorbed, so every
    label present stays present. Merges adjacent turns afterwards.
    """
    turns = merge_adjacent(turns)
    while True:
        counts: dict[int, int] = {}
        for _, _, label in turns:
            counts[label] = counts.get(label, 0) + 1
        candidates = [
            i for i, (s, e, label) in enumerate(turns) if e - s < min_duration and counts[label] > 1 and _touching(turns, i)
        ]
        if not candidates:
            return turns
        i = min(candidates, key=lambda j: turns[j][1] - turns[j][0])
        neighbours = [turns[j] for j in _touching(turns, i)]
        label = max(neighbours, key=lambda t: t[1] - t[0])[2]
        turns[i] = (turns[i][0], turns[i][1], label)
        turns = merge_adjacent(turns)


def _touching(turns: list[Turn], i: int) -> list[int]:
    """Indices of the neighbours of turn ``i`` that touch it and have another label."""
    out = []
    if i > 0 and turns[i - 1][1] >= turns[i][0] - 1e-6 and turns[i - 1][2] != turns[i][2]:
        out.append(i - 1)
    if i + 1 < len(turns) and turns[i + 1][0] <= turns[i][1] + 1e-6 and turns[i + 1][2] != turns[i][2]:
        out.append(i + 1)
    return out
