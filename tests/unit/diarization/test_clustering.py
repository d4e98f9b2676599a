"""Agglomerative clustering of synthetic embedding clusters, and the turn smoothing helpers."""

from __future__ import annotations

import numpy as np
import pytest

from engines.diarization.clustering import (
    absorb_short,
    cluster,
    first_appearance,
    median_filter,
    merge_adjacent,
)

DIM = 64


def blobs(sizes: list[int], spread: float = 0.25, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Points around random unit centres (pairwise cosine near 0 in 64-d), shuffled; and their true labels."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((len(sizes), DIM))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    truth = np.repeat(np.arange(len(sizes)), sizes)
    points = centres[truth] + spread * rng.standard_normal((len(truth), DIM)) / np.sqrt(DIM)
    order = rng.permutation(len(truth))
    return points[order], truth[order]


def agree(labels: np.ndarray, truth: np.ndarray) -> bool:
    """Same partition, whatever the label names."""
    pairs = set(zip(labels.tolist(), truth.tolist()))
    return len(pairs) == len(set(labels.tolist())) == len(set(truth.tolist()))


@pytest.mark.parametrize("sizes", [[30], [20, 25], [10, 12, 15, 9], [8] * 6])
def test_estimated_count_recovers_well_separated_clusters(sizes: list[int]) -> None:
    points, truth = blobs(sizes)
    labels = cluster(points)
    assert agree(labels, truth)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_fixed_count_gives_exactly_k_clusters(k: int) -> None:
    points, _ = blobs([15, 15, 15])
    labels = cluster(points, num_clusters=k)
    assert len(set(labels.tolist())) == k


def test_fixed_count_matching_the_truth_recovers_the_partition() -> None:
    points, truth = blobs([12, 20, 7, 16], seed=3)
    assert agree(cluster(points, num_clusters=4), truth)


def test_more_clusters_asked_than_points_gives_one_per_point() -> None:
    points, _ = blobs([2, 1])
    assert sorted(cluster(points, num_clusters=5).tolist()) == [0, 1, 2]


def test_labels_are_numbered_by_first_appearance() -> None:
    points, _ = blobs([10, 10, 10], seed=1)
    labels = cluster(points)
    firsts = [int(np.flatnonzero(labels == k)[0]) for k in range(labels.max() + 1)]
    assert firsts == sorted(firsts)
    assert labels[0] == 0


def test_single_outlier_is_folded_into_a_speaker() -> None:
    points, _ = blobs([15, 15], seed=2)
    rng = np.random.default_rng(9)
    outlier = rng.standard_normal((1, DIM))
    labels = cluster(np.vstack([points, outlier]))
    assert len(set(labels.tolist())) == 2


def test_max_clusters_caps_the_estimate() -> None:
    points, _ = blobs([6] * 5)
    assert len(set(cluster(points, max_clusters=3).tolist())) == 3


def test_threshold_bounds_the_count() -> None:
    points, _ = blobs([10, 10, 10])
    assert len(set(cluster(points, threshold=1.9).tolist())) == 1
    assert len(set(cluster(points, threshold=0.5).tolist())) == 3


def test_subset_clustering_of_many_points_labels_every_point() -> None:
    points, truth = blobs([300, 200], seed=4)
    labels = cluster(points, max_points=100)
    assert labels.shape == truth.shape and agree(labels, truth)


def test_degenerate_inputs() -> None:
    assert cluster(np.zeros((0, DIM))).shape == (0,)
    assert cluster(np.ones((1, DIM))).tolist() == [0]
    with pytest.raises(ValueError):
        cluster(np.ones((3, DIM)), num_clusters=0)


def test_first_appearance_and_median_filter() -> None:
    assert first_appearance(np.array([4, 4, 1, 4, 7])).tolist() == [0, 0, 1, 0, 2]
    noisy = np.array([0, 0, 1, 0, 0, 1, 1, 0, 1, 1])
    assert median_filter(noisy, 3).tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    assert median_filter(noisy, 1).tolist() == noisy.tolist()


def test_merge_adjacent_joins_one_speaker_across_small_gaps_only() -> None:
    turns = [(0.0, 1.0, 0), (1.2, 2.0, 0), (3.0, 4.0, 0), (4.0, 5.0, 1)]
    assert merge_adjacent(turns, max_gap=0.5) == [(0.0, 2.0, 0), (3.0, 4.0, 0), (4.0, 5.0, 1)]
    assert merge_adjacent(turns) == turns


def test_absorb_short_gives_short_touching_turns_to_a_neighbour() -> None:
    turns = [(0.0, 2.0, 0), (2.0, 2.2, 1), (2.2, 4.0, 0), (4.0, 6.0, 1)]
    assert absorb_short(turns, 0.3) == [(0.0, 4.0, 0), (4.0, 6.0, 1)]


def test_absorb_short_keeps_a_speakers_only_turn_and_separate_turns() -> None:
    only = [(0.0, 2.0, 0), (2.0, 2.1, 1), (2.1, 4.0, 0)]
    assert absorb_short(only, 0.3) == only
    apart = [(0.0, 2.0, 0), (2.5, 2.7, 1), (3.0, 4.0, 1)]
    assert absorb_short(apart, 0.3) == apart
