"""Silero VAD, the SNR estimator and the DeepFilterNet denoiser on real speech.

Speech: Harvard sentences from Debian's codec2-examples (8 kHz, resampled with
soxr). Noise is mixed in at known SNRs, defined over the speech-active part of
the clean recording. Assertions are bounds, never exact model outputs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soxr

from engines.audio import snr
from engines.audio.decode import AudioClip
from engines.audio.denoise import ALGORITHMIC_DELAY, DeepFilterDenoiser
from engines.audio.snr import estimate_snr_db, frame_powers
from engines.audio.vad import SileroVad, segments_from_probabilities, speech_seconds
from engines.errors import EngineUnavailable

HARVARD = Path("/usr/share/codec2/raw/hts.raw")  # 24 s, 8 kHz s16le mono, ~45 dB SNR
RATE = 16_000
pytestmark = pytest.mark.skipif(not HARVARD.is_file(), reason="needs Debian's codec2-examples")


def harvard(rate: int = RATE, seconds: float | None = None) -> np.ndarray:
    raw = np.fromfile(HARVARD, dtype="<i2").astype(np.float32) / 32768
    out = soxr.resample(raw, 8000, rate).astype(np.float32)
    return out if seconds is None else out[: round(seconds * rate)]


def noise(kind: str, n: int, rate: int = RATE, seed: int = 0) -> np.ndarray:
    """Unit-power white, pink (1/f) or mains hum with hiss."""
    rng = np.random.default_rng(seed)
    if kind == "white":
        out = rng.standard_normal(n)
    elif kind == "pink":
        spectrum = np.fft.rfft(rng.standard_normal(n))
        freqs = np.fft.rfftfreq(n, 1 / rate)
        spectrum[1:] /= np.sqrt(freqs[1:])
        spectrum[freqs < 20] = 0
        out = np.fft.irfft(spectrum, n)
    else:
        t = np.arange(n) / rate
        out = sum(np.sin(2 * np.pi * 50 * k * t + k) / k for k in range(1, 8)) + 0.3 * rng.standard_normal(n)
    return (out / np.sqrt(np.mean(out**2))).astype(np.float32)


def mix(clean: np.ndarray, speech: list[tuple[float, float]], snr_db: float, kind: str, rate: int = RATE) -> np.ndarray:
    """``clean`` plus ``kind`` noise, ``snr_db`` under the clean speech's power within ``speech``."""
    clip = AudioClip(clean, rate)
    powers = frame_powers(clip)
    centres = (np.arange(powers.size) + 0.5) * snr.FRAME_S
    active = np.zeros(powers.size, dtype=bool)
    for start, end in speech:
        active |= (centres >= start) & (centres <= end)
    gain = np.sqrt(powers[active].mean() / 10 ** (snr_db / 10))
    return (clean + gain * noise(kind, len(clean), rate)).astype(np.float32)


def snr_vs(reference: np.ndarray, estimate: np.ndarray) -> float:
    return float(10 * np.log10(np.sum(reference**2) / np.sum((estimate - reference) ** 2)))


def lag_of(a: np.ndarray, b: np.ndarray) -> int:
    """Samples by which ``a`` lags ``b`` (peak of the FFT cross-correlation)."""
    n = 1 << (len(a) + len(b)).bit_length()
    corr = np.fft.irfft(np.fft.rfft(a, n) * np.conj(np.fft.rfft(b, n)), n)
    lag = int(np.argmax(corr))
    return lag if lag < n // 2 else lag - n


@pytest.fixture(scope="module")
def vad() -> SileroVad:
    return SileroVad()


@pytest.fixture(scope="module")
def clean() -> np.ndarray:
    return harvard()


@pytest.fixture(scope="module")
def clean_speech(vad: SileroVad, clean: np.ndarray) -> list[tuple[float, float]]:
    return vad.speech_segments(AudioClip(clean, RATE))


@pytest.fixture(scope="module")
def denoiser() -> Iterator[DeepFilterDenoiser]:
    denoiser = DeepFilterDenoiser(pool_size=2)
    yield denoiser
    denoiser.close()


# --------------------------------------------------------------------- VAD


def test_segments_follow_the_speech(vad: SileroVad, clean: np.ndarray) -> None:
    sentence = clean[: 3 * RATE]
    quiet = (1e-4 * np.random.default_rng(1).standard_normal(2 * RATE)).astype(np.float32)
    audio = np.concatenate([quiet, sentence, quiet, quiet, sentence, quiet])  # speech within 2-5 s and 9-12 s
    segments = vad.speech_segments(AudioClip(audio, RATE))
    assert segments == sorted(segments)
    assert all(0 <= s < e <= 14 for s, e in segments)
    first, second = (1.7, 5.3), (8.7, 12.3)
    assert all(first[0] <= s < e <= first[1] or second[0] <= s < e <= second[1] for s, e in segments)
    assert 3.0 <= speech_seconds(segments) <= 6.0
    assert min(s for s, _ in segments) == pytest.approx(2.0, abs=0.4)


def test_segments_do_not_depend_on_the_rate(vad: SileroVad) -> None:
    at_16k = vad.speech_segments(AudioClip(harvard(16_000, 8), 16_000))
    at_44k = vad.speech_segments(AudioClip(harvard(44_100, 8), 44_100))
    assert len(at_16k) == len(at_44k)
    for (s1, e1), (s2, e2) in zip(at_16k, at_44k):
        assert abs(s1 - s2) <= 0.1 and abs(e1 - e2) <= 0.1


def test_no_segments_in_noise_or_silence(vad: SileroVad) -> None:
    white = AudioClip(0.1 * noise("white", 5 * RATE), RATE)
    assert speech_seconds(vad.speech_segments(white)) < 0.5
    assert vad.speech_segments(AudioClip(np.zeros(5 * RATE, dtype=np.float32), RATE)) == []


def test_vad_is_thread_safe_and_cheap(vad: SileroVad, clean: np.ndarray) -> None:
    clip = AudioClip(clean, RATE)
    started = time.perf_counter()
    expected = vad.speech_segments(clip)
    real_time_factor = (time.perf_counter() - started) / clip.duration_s
    assert real_time_factor < 0.1  # ~0.005 on an idle core
    results: list[list[tuple[float, float]]] = []
    threads = [threading.Thread(target=lambda: results.append(vad.speech_segments(clip))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 4


def test_segments_from_probabilities() -> None:
    step = 512 / 16_000
    probs = [0.0] * 10 + [0.9] * 20 + [0.4] * 3 + [0.9] * 10 + [0.0] * 10 + [0.9] * 3 + [0.0] * 10
    segments = segments_from_probabilities(probs, len(probs) * step, pad_s=0.0)
    # the 0.4 dip (above threshold - 0.15) does not end speech; the 3-window blip is under 0.25 s
    assert segments == [(round(10 * step, 4), round(43 * step, 4))]
    gap = [0.9] * 20 + [0.0] * 2 + [0.9] * 20  # a 64 ms pause is under min_silence_s
    assert len(segments_from_probabilities(gap, len(gap) * step)) == 1
    padded = segments_from_probabilities([0.9] * 20 + [0.0] * 20, 40 * step, pad_s=0.03)
    assert padded == [(0.0, round(20 * step + 0.03, 4))]
    assert segments_from_probabilities([0.9] * 20, 0.5) == [(0.0, 0.5)]  # speech to the end is clipped to the clip


def test_speech_seconds() -> None:
    assert speech_seconds([]) == 0.0
    assert speech_seconds([(0.5, 1.5), (2.0, 4.5)]) == pytest.approx(3.5)


def test_missing_vad_model_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(EngineUnavailable, match="Silero VAD"):
        SileroVad(tmp_path / "absent.onnx")


# --------------------------------------------------------------------- SNR


@pytest.mark.parametrize("kind", ["white", "pink", "hum"])
@pytest.mark.parametrize("target_db", [10, 20, 30])
def test_snr_estimate_is_within_a_few_db(
    vad: SileroVad, clean: np.ndarray, clean_speech: list[tuple[float, float]], kind: str, target_db: float
) -> None:
    clip = AudioClip(mix(clean, clean_speech, target_db, kind), RATE)
    estimate = estimate_snr_db(clip, vad.speech_segments(clip))
    assert estimate == pytest.approx(target_db, abs=2.5)


def test_snr_at_other_rates(vad: SileroVad) -> None:
    rate = 48_000
    speech = harvard(rate, 12)
    clip = AudioClip(mix(speech, vad.speech_segments(AudioClip(speech, rate)), 20, "white", rate), rate)
    assert estimate_snr_db(clip, vad.speech_segments(clip)) == pytest.approx(20, abs=2.5)


def test_clean_recording_is_well_over_the_floor(clean: np.ndarray, clean_speech: list[tuple[float, float]]) -> None:
    assert estimate_snr_db(AudioClip(clean, RATE), clean_speech) > 35


def test_digital_silence_between_words_gives_the_cap(clean: np.ndarray, clean_speech: list[tuple[float, float]]) -> None:
    gated = np.zeros_like(clean)
    for start, end in clean_speech:
        gated[int(start * RATE) : int(end * RATE)] = clean[int(start * RATE) : int(end * RATE)]
    assert estimate_snr_db(AudioClip(gated, RATE), clean_speech) == snr.MAX_DB


def test_percentile_fallback_when_nearly_all_is_speech(clean: np.ndarray, clean_speech: list[tuple[float, float]]) -> None:
    clip = AudioClip(mix(clean, clean_speech, 20, "white"), RATE)
    whole = [(0.0, clip.duration_s)]  # no background frames at all
    assert estimate_snr_db(clip, whole) == pytest.approx(20, abs=3)


def test_snr_edge_cases(clean: np.ndarray) -> None:
    clip = AudioClip(clean, RATE)
    assert estimate_snr_db(clip, []) == snr.MIN_DB
    assert estimate_snr_db(AudioClip(np.zeros(0, dtype=np.float32), RATE), [(0, 1)]) == snr.MIN_DB
    white = AudioClip(0.1 * noise("white", 10 * RATE), RATE)
    assert estimate_snr_db(white, [(2.0, 4.0)]) < 3  # "speech" no louder than its background
    assert snr.MIN_DB <= estimate_snr_db(white, [(2.0, 4.0)]) <= snr.MAX_DB


# --------------------------------------------------------------------- denoiser


@pytest.fixture(scope="module")
def noisy_pair(clean: np.ndarray, clean_speech: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """10 s of speech and the same with white noise ~5 dB under it."""
    noisy = mix(clean, clean_speech, 5, "white")
    return clean[: 10 * RATE], noisy[: 10 * RATE]


Pair = tuple[np.ndarray, np.ndarray]


def test_denoising_removes_noise_and_keeps_timing(denoiser: DeepFilterDenoiser, noisy_pair: Pair) -> None:
    reference, noisy = noisy_pair
    started = time.perf_counter()
    out = denoiser.denoise(AudioClip(noisy, RATE))
    real_time_factor = (time.perf_counter() - started) / 10
    assert out.sample_rate == RATE and len(out.samples) == len(noisy) and out.samples.dtype == np.float32
    assert snr_vs(reference, out.samples) >= snr_vs(reference, noisy) + 5
    assert abs(lag_of(out.samples, reference)) <= 2
    assert real_time_factor < 1.0  # ~0.1 on an idle core


def test_denoising_at_48k_needs_no_resampling(denoiser: DeepFilterDenoiser) -> None:
    speech = harvard(48_000, 4)
    noisy = mix(speech, [(0.0, 4.0)], 10, "pink", 48_000)
    out = denoiser.denoise(AudioClip(noisy, 48_000))
    assert len(out.samples) == len(noisy)
    assert abs(lag_of(out.samples, speech)) <= 2  # the 1,440-sample delay is compensated
    assert ALGORITHMIC_DELAY == 1440


def test_denoising_odd_rates_and_lengths(denoiser: DeepFilterDenoiser) -> None:
    speech = harvard(22_050, 3.3)[:-7]
    out = denoiser.denoise(AudioClip(speech, 22_050))
    assert out.sample_rate == 22_050 and len(out.samples) == len(speech)
    assert abs(lag_of(out.samples, speech)) <= 2
    assert np.isfinite(out.samples).all() and np.abs(out.samples).max() <= 1.0


def test_silence_stays_silent(denoiser: DeepFilterDenoiser) -> None:
    out = denoiser.denoise(AudioClip(np.zeros(RATE, dtype=np.float32), RATE))
    assert np.abs(out.samples).max() < 1e-3


def test_concurrent_calls_use_separate_states(noisy_pair: tuple[np.ndarray, np.ndarray]) -> None:
    _, noisy = noisy_pair
    clip = AudioClip(noisy[: 2 * RATE], RATE)
    pool = DeepFilterDenoiser(pool_size=2)
    try:
        outputs: list[np.ndarray] = []
        threads = [threading.Thread(target=lambda: outputs.append(pool.denoise(clip).samples)) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(outputs) == 3
        for out in outputs[1:]:
            assert np.corrcoef(out, outputs[0])[0, 1] > 0.95
        assert len(pool._idle) <= 2
    finally:
        pool.close()
    with pytest.raises(EngineUnavailable, match="closed"):
        pool.denoise(clip)


def test_missing_library_or_model_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(EngineUnavailable, match="could not be loaded"):
        DeepFilterDenoiser(library_path=tmp_path / "libdeepfilter.so")
    with pytest.raises(EngineUnavailable, match="model not found"):
        DeepFilterDenoiser(model_path=tmp_path / "DeepFilterNet3_onnx.tar.gz")
