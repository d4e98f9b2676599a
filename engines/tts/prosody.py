"""Pitch and loudness applied to synthesized speech, keeping its duration.

Pitch without a vocoder: the engine speaks ``p`` times slower than asked
(``p`` = 2^(semitones/12)), then the audio is resampled by ``p``, which
restores the duration and raises the pitch by ``p`` (formants move with it,
so shifts are kept within ±4 semitones). Loudness is a gain in dB with a peak
limit at −1 dBFS so nothing clips.
"""

from __future__ import annotations

import numpy as np

MAX_SEMITONES = 4.0
PEAK = 10 ** (-1 / 20)


def pitch_factor(semitones: float) -> float:
    return float(2 ** (np.clip(semitones, -MAX_SEMITONES, MAX_SEMITONES) / 12))


def engine_speed(speed: float, semitones: float, low: float = 0.5, high: float = 2.0) -> float:
    """The rate to ask the engine for so that pitch shifting ends at ``speed``."""
    return float(np.clip(speed / pitch_factor(semitones), low, high))


def shift_pitch(samples: np.ndarray, semitones: float) -> np.ndarray:
    """Play ``samples`` ``pitch_factor`` times faster (higher and shorter), by resampling."""
    factor = pitch_factor(semitones)
    if abs(factor - 1.0) < 1e-3 or len(samples) < 2:
        return samples
    import soxr

    rate_in = 48_000
    return soxr.resample(samples, rate_in, round(rate_in / factor), quality="HQ").astype(np.float32)


def apply_gain(samples: np.ndarray, gain_db: float) -> np.ndarray:
    out = samples * np.float32(10 ** (gain_db / 20))
    peak = float(np.max(np.abs(out))) if len(out) else 0.0
    if peak > PEAK:
        out = out * np.float32(PEAK / peak)
    return out.astype(np.float32)
