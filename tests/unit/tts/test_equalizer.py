"""A cloned voice's stored equaliser (engines.tts.equalizer)."""

from __future__ import annotations

import numpy as np

from engines.tts.equalizer import apply_matching

RATE = 24_000


def _noise(seconds: float = 1.0) -> np.ndarray:
    return (np.random.default_rng(5).normal(0, 0.1, int(RATE * seconds))).astype(np.float32)


def _band_energy(audio: np.ndarray, low: float, high: float) -> float:
    spectrum = np.abs(np.fft.rfft(audio)) ** 2
    freqs = np.fft.rfftfreq(len(audio), 1 / RATE)
    return float(spectrum[(freqs >= low) & (freqs < high)].sum())


def test_voices_without_an_equaliser_are_untouched() -> None:
    audio = _noise()
    assert apply_matching(audio, RATE, {}) is audio
    assert apply_matching(audio, RATE, {"pitch_semitones": 1.5}) is audio


def test_the_stored_gains_tilt_the_spectrum_and_keep_the_length() -> None:
    audio = _noise()
    gains = list(np.linspace(-6.0, 6.0, 24))  # darker lows, brighter highs
    out = apply_matching(audio, RATE, {"eq_db": gains, "eq_rate": 16_000})
    assert out.dtype == np.float32 and len(out) == len(audio)
    before = _band_energy(audio, 4000, 7000) / _band_energy(audio, 100, 400)
    after = _band_energy(out, 4000, 7000) / _band_energy(out, 100, 400)
    assert after > 4 * before
    assert float(np.max(np.abs(out))) <= 0.89 + 1e-6
