"""Silence search and chunk boundaries on synthetic tones separated by silences."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engines.asr.audio import (
    Chunk,
    ChunkingOptions,
    find_silences,
    frame_energy_db,
    split_at_silences,
)

SR = 16_000


def _assert_partition(chunks: tuple[Chunk, ...], total: float, max_chunk: float) -> None:
    assert chunks[0].start == 0.0
    assert chunks[-1].end == pytest.approx(total)
    for a, b in itertools.pairwise(chunks):
        assert a.end == b.start
    assert all(0 < c.duration <= max_chunk + 1e-9 for c in chunks)


def test_frame_energy_separates_tone_from_silence(make_signal):
    audio = make_signal(("tone", 1.0), ("gap", 1.0))
    energy = frame_energy_db(audio, SR, 0.02)
    assert energy.shape == (100,)
    assert energy[:50].min() > -10  # 0.5 amplitude sine ≈ -9 dBFS
    assert energy[50:].max() <= -90


def test_find_silences_reports_each_gap_long_enough(make_signal):
    audio = make_signal(("tone", 2), ("gap", 0.5), ("tone", 2), ("gap", 0.1), ("tone", 1), ("gap", 1.0))
    silences = find_silences(audio, SR, min_silence_s=0.3)
    assert len(silences) == 2  # the 0.1 s gap is too short
    (a1, b1), (a2, b2) = silences
    assert (a1, b1) == pytest.approx((2.0, 2.5), abs=0.021)
    assert (a2, b2) == pytest.approx((5.6, 6.6), abs=0.021)


def test_find_silences_is_relative_to_peak():
    quiet = np.concatenate([np.full(SR, 0.01, np.float32), np.full(SR, 0.0001, np.float32)])
    silences = find_silences(quiet, SR, threshold_db=-35)
    assert silences == (pytest.approx((1.0, 2.0)),)


def test_short_audio_is_one_chunk(make_signal):
    audio = make_signal(("tone", 20), ("gap", 1), ("tone", 10))
    assert split_at_silences(audio, 30, 40) == (Chunk(0.0, pytest.approx(31.0)),)


def test_cuts_land_inside_the_gaps_near_targets(make_signal):
    # gaps centred at 9.25 s, 30.0 s and 58.7 s; the first is outside the [20, 40] window
    audio = make_signal(("tone", 9), ("gap", 0.5), ("tone", 20), ("gap", 1.0), ("tone", 28), ("gap", 0.4), ("tone", 25))
    total = audio.size / SR
    chunks = split_at_silences(audio, target_chunk_s=30, max_chunk_s=40)
    _assert_partition(chunks, total, 40)
    assert [round(c.end, 2) for c in chunks[:-1]] == [30.0, 58.7]


def test_longest_silence_in_window_wins(make_signal):
    # two gaps in the window [20, 40]: 0.4 s at 22 s and 1.2 s at 37 s
    audio = make_signal(("tone", 22), ("gap", 0.4), ("tone", 14.6), ("gap", 1.2), ("tone", 12))
    chunks = split_at_silences(audio, target_chunk_s=30, max_chunk_s=40)
    assert chunks[0].end == pytest.approx(37.6, abs=0.03)


def test_without_silence_cut_goes_to_quietest_stretch():
    rng = np.random.default_rng(1)
    loud = (rng.standard_normal(50 * SR) * 0.3).astype(np.float32)
    loud[int(33.0 * SR) : int(33.2 * SR)] *= 0.2  # a dip, not quiet enough to be silence
    chunks = split_at_silences(loud, target_chunk_s=30, max_chunk_s=40, options=ChunkingOptions(30, 40, threshold_db=-60))
    assert 33.0 <= chunks[0].end <= 33.2
    _assert_partition(chunks, 50.0, 40)


def test_continuous_tone_is_cut_no_later_than_max(make_signal):
    audio = make_signal(("tone", 100))
    chunks = split_at_silences(audio, target_chunk_s=30, max_chunk_s=40)
    _assert_partition(chunks, 100.0, 40)
    assert len(chunks) >= 3


def test_chunk_slices_cover_every_sample_once(make_signal):
    audio = make_signal(("tone", 25), ("gap", 0.6), ("tone", 25), ("gap", 0.6), ("tone", 25))
    chunks = split_at_silences(audio, 20, 30)
    assert sum(c.slice(audio, SR).size for c in chunks) == audio.size
    joined = np.concatenate([c.slice(audio, SR) for c in chunks])
    assert np.array_equal(joined, audio)


@pytest.mark.parametrize("target,maximum", [(0, 10), (20, 10), (-1, 5)])
def test_invalid_lengths_are_rejected(target, maximum):
    with pytest.raises(ValueError):
        ChunkingOptions(target_chunk_s=target, max_chunk_s=maximum)
