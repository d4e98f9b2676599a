"""The dub's tracks built a block at a time give the samples of the whole-array versions.

Tracks here run at 1 kHz so that a 100 s track spans four 30 s blocks with
few samples; every function under test takes the rate as a parameter.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engines.audio.decode import AudioClip
from engines.dubbing.mixdown import PlacedLine, assemble, limit, limit_range, mix, splice
from engines.dubbing.separation import separate, separate_track
from engines.dubbing.timeline import lay_clips, mix_into, save_clip
from engines.dubbing.wav_track import BLOCK_S, PCM_16, WavTrack, write_track

RATE = 1000
SECONDS = 100.0


def wav(path: Path, samples: np.ndarray, subtype: str = "FLOAT") -> WavTrack:
    sf.write(path, samples, RATE, subtype=subtype, format="WAV")
    return WavTrack(path)


def noise(seconds: float, scale: float, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(round(seconds * RATE)) * scale).astype(np.float32)


def test_a_track_reads_any_range_zero_padded_and_views_share_the_file(tmp_path: Path) -> None:
    data = noise(10.0, 0.1, 1)
    track = wav(tmp_path / "a.wav", data)
    assert len(track) == len(data) and track.rate == RATE
    np.testing.assert_array_equal(track.read(100, 200), data[100:200])
    edge = track.read(-5, 5)
    np.testing.assert_array_equal(edge[:5], 0)
    np.testing.assert_array_equal(edge[5:], data[:5])
    tail = track.read(len(data) - 3, len(data) + 4)
    np.testing.assert_array_equal(tail[:3], data[-3:])
    np.testing.assert_array_equal(tail[3:], 0)
    view = track.view(1000, 3000)
    assert len(view) == 2000
    np.testing.assert_array_equal(view[10:20], data[1010:1020])
    np.testing.assert_array_equal(view.read(1990, 2010)[10:], 0)  # a view ends where it says, not at the file's end
    np.testing.assert_array_equal(view[1990:5000], data[2990:3000])


def test_write_track_builds_the_file_from_consecutive_blocks(tmp_path: Path) -> None:
    data = noise(SECONDS, 0.7, 2)
    calls: list[tuple[int, int]] = []

    def block(lo: int, hi: int) -> np.ndarray:
        calls.append((lo, hi))
        return data[lo:hi] * 2  # some samples go past full scale

    out = write_track(tmp_path / "out.wav", RATE, len(data), block)
    assert calls[0][0] == 0 and calls[-1][1] == len(data) and len(calls) == int(np.ceil(SECONDS / BLOCK_S))
    assert all(a[1] == b[0] for a, b in itertools.pairwise(calls))
    np.testing.assert_array_equal(out.read(0, len(out)), data * 2)
    pcm = write_track(tmp_path / "pcm.wav", RATE, len(data), block, subtype=PCM_16)
    assert np.abs(pcm.read(0, len(pcm))).max() <= 1.0
    assert not (tmp_path / ".out.wav.part").exists()


def test_limit_range_gives_the_whole_signals_limited_samples_block_by_block() -> None:
    signal = noise(SECONDS, 0.2, 3)
    for at in (29_990, 30_000, 30_015, 59_999, 75_000):  # peaks on and around block edges
        signal[at] = 1.6
    whole = limit(signal, RATE)
    step = round(BLOCK_S * RATE)
    blocks = [
        limit_range(lambda a, b: signal[a:b], lo, min(lo + step, len(signal)), len(signal), RATE)
        for lo in range(0, len(signal), step)
    ]
    np.testing.assert_allclose(np.concatenate(blocks), whole, atol=1e-6)


def test_clips_laid_block_by_block_equal_assemble(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    lines = [
        PlacedLine(float(start), noise(float(rng.uniform(0.5, 6.0)), 0.3, k), fade_out_s=float(rng.choice([0.0, 0.05])))
        for k, start in enumerate([-1.0, 3.2, 29.5, 31.0, 59.8, 61.0, 89.99, 97.5])  # across edges, before 0, past the end
    ]
    clips = [save_clip(line, RATE, tmp_path / f"clip-{k}.npy") for k, line in enumerate(lines)]
    length = round(SECONDS * RATE)
    laid = lay_clips(list(reversed(clips)), RATE, length, tmp_path / "dub.wav")
    np.testing.assert_allclose(laid.read(0, length), assemble(lines, RATE, SECONDS), atol=1e-6)


@pytest.mark.parametrize(("start", "end"), [(0.0, None), (12.5, 80.25), (30.0, 60.0)])
@pytest.mark.parametrize("ratio", [0.0, 0.5])
def test_mix_into_equals_splice_of_the_limited_mix(tmp_path: Path, start: float, end: float | None, ratio: float) -> None:
    original = noise(SECONDS, 0.2, 5)
    span = round(((end or SECONDS) - start) * RATE)
    dub = noise(span / RATE, 0.4, 6)
    dub[[10, span // 2, span - 20]] = 1.5  # limited peaks, one on a block edge for a span starting at 30 s
    background = noise(span / RATE, 0.3, 7)
    expected = splice(original, mix(dub, background, ratio, rate=RATE), RATE, start, end)
    out = mix_into(
        wav(tmp_path / "o.wav", original), wav(tmp_path / "d.wav", dub), wav(tmp_path / "b.wav", background), ratio, start, end,
        tmp_path / "final.wav",
    )  # fmt: skip
    assert len(out) == len(original)
    np.testing.assert_allclose(out.read(0, len(out)), np.clip(expected, -1, 1), atol=1 / 32768 + 1e-6)  # 16-bit output


class SmoothingDenoiser:
    """A stand-in with the denoiser's contract (same length and rate) whose output depends on the input around
    each sample, so a piece read at the wrong place, or cross-faded wrongly, changes the result."""

    def denoise(self, clip: AudioClip) -> AudioClip:
        kernel = np.hanning(31).astype(np.float32)
        return AudioClip(np.convolve(clip.samples, kernel / kernel.sum(), mode="same").astype(np.float32), clip.sample_rate)


def test_separate_track_equals_separate_and_stems_sum_to_the_mix(tmp_path: Path) -> None:
    mixture = noise(SECONDS, 0.3, 8)
    source = wav(tmp_path / "mix.wav", mixture).view(7_000, 93_000)  # a range of the file, as the dub's span is
    speech, background = separate(mixture[7_000:93_000], RATE, SmoothingDenoiser(), chunk_s=10.0)  # type: ignore[arg-type]
    fractions: list[float] = []
    s_track, b_track = separate_track(
        source, tmp_path / "speech.wav", tmp_path / "background.wav", SmoothingDenoiser(),  # type: ignore[arg-type]
        on_progress=fractions.append, chunk_s=10.0,
    )  # fmt: skip
    assert len(s_track) == len(b_track) == len(source)
    # The stand-in is linear and local, so pieces with context, cross-faded, give exactly one pass over the range.
    one_pass = SmoothingDenoiser().denoise(AudioClip(mixture[7_000:93_000], RATE)).samples
    np.testing.assert_allclose(s_track.read(0, len(source)), one_pass, atol=1e-5)
    np.testing.assert_allclose(s_track.read(0, len(source)), speech, atol=1e-6)
    np.testing.assert_allclose(b_track.read(0, len(source)), background, atol=1e-6)
    np.testing.assert_allclose(s_track.read(0, len(source)) + b_track.read(0, len(source)), mixture[7_000:93_000], atol=1e-5)
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
