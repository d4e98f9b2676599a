"""Signal helpers shared by the speaker encoders and the pitch tracker.

Input checks and resampling to the encoders' 16 kHz (:func:`prepare`),
framing, librosa-style periodic windows, power spectra, unit normalisation,
and finding model files inside installed packages. The mel filterbank both
encoders use is :func:`engines.mel.mel_filterbank`.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np

from engines.errors import InvalidInput


class UnusableAudio(InvalidInput, ValueError):
    """Audio that cannot be embedded: empty, too short, silent or not finite."""


#: Rate both encoders work at.
MODEL_RATE = 16_000
#: Shortest input either encoder accepts, in seconds.
MIN_SECONDS = 0.5
#: Inputs whose peak is below this (about -70 dBFS) are treated as silence.
SILENCE_PEAK = 3e-4


def package_file(package: str, *parts: str) -> Path | None:
    """Path of a file shipped inside an installed ``package``, without importing it (None when absent)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*parts)
    return path if path.is_file() else None


def resample(samples: np.ndarray, sample_rate: int, target_rate: int) -> np.ndarray:
    """Polyphase resampling (scipy, Kaiser window) of mono float32 ``samples``."""
    if sample_rate == target_rate:
        return samples
    from scipy.signal import resample_poly

    g = math.gcd(sample_rate, target_rate)
    return resample_poly(samples, target_rate // g, sample_rate // g).astype(np.float32)


def prepare(samples: np.ndarray, sample_rate: int, target_rate: int = MODEL_RATE) -> np.ndarray:
    """Validate speech input and return it as mono float32 at ``target_rate``.

    Accepts 1-D samples or 2-D ``(frames, channels)`` (averaged to mono).

    Raises:
        UnusableAudio: bad rate or shape, non-finite values, shorter than
            :data:`MIN_SECONDS`, or silent.
    """
    if sample_rate <= 0:
        raise UnusableAudio(f"sample rate must be positive, got {sample_rate}")
    audio = np.asarray(samples, dtype=np.float32)
    if audio.ndim == 2:
        audio = audio.mean(axis=1)
    if audio.ndim != 1:
        raise UnusableAudio(f"expected mono samples (1-D) or (frames, channels), got shape {audio.shape}")
    seconds = audio.size / sample_rate
    if seconds < MIN_SECONDS:
        raise UnusableAudio(f"audio too short to embed: {seconds:.2f} s, need at least {MIN_SECONDS} s")
    if not np.all(np.isfinite(audio)):
        raise UnusableAudio("audio contains NaN or infinite samples")
    if float(np.max(np.abs(audio))) < SILENCE_PEAK:
        raise UnusableAudio("audio is silent: no speech to embed")
    return resample(audio, sample_rate, target_rate)


def frames(audio: np.ndarray, size: int, hop: int) -> np.ndarray:
    """View of ``audio`` as ``(n, size)`` frames every ``hop`` samples (no padding)."""
    return np.lib.stride_tricks.sliding_window_view(audio, size)[::hop]


def periodic_window(kind: str, length: int, n_fft: int) -> np.ndarray:
    """Periodic ``hann`` or ``hamming`` window centred in ``n_fft`` samples, as librosa's STFT builds it."""
    alpha = {"hann": 0.5, "hamming": 0.54}[kind]
    window = alpha - (1.0 - alpha) * np.cos(2.0 * np.pi * np.arange(length) / length)
    left = (n_fft - length) // 2
    return np.pad(window, (left, n_fft - length - left)).astype(np.float32)


def power_spectrogram(framed: np.ndarray, window: np.ndarray) -> np.ndarray:
    """``|rfft(frame * window)|^2`` for each row of ``framed``: ``(n, n_fft // 2 + 1)`` float32."""
    spectrum = np.fft.rfft(framed * window, axis=1)
    return (spectrum.real**2 + spectrum.imag**2).astype(np.float32)


def unit(vector: np.ndarray) -> np.ndarray:
    """``vector`` scaled to unit L2 norm, as float32."""
    norm = float(np.linalg.norm(vector))
    if not norm > 0:
        raise UnusableAudio("the encoder produced a zero embedding (no usable speech)")
    return (np.asarray(vector, dtype=np.float64) / norm).astype(np.float32)
