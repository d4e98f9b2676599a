"""The mel filterbank shared by the speaker encoders and the TTS equaliser.

Slaney-scale, Slaney-normalised filters, equal to librosa's defaults
(``librosa.filters.mel``), built with numpy alone so neither user imports librosa.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

_MEL_LINEAR_STEP = 200.0 / 3.0
_MEL_BREAK_HZ = 1000.0
_MEL_LOG_STEP = math.log(6.4) / 27.0


@lru_cache(maxsize=8)
def mel_filterbank(sample_rate: int, n_fft: int, n_mels: int) -> np.ndarray:
    """Slaney-scale, Slaney-normalised mel filters ``(n_mels, n_fft // 2 + 1)``, read-only.

    Equal to ``librosa.filters.mel(sr=sample_rate, n_fft=n_fft, n_mels=n_mels)``
    (librosa's defaults, which both speaker encoders were trained with).
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


def _hz_to_mel(hz: float) -> float:
    if hz < _MEL_BREAK_HZ:
        return hz / _MEL_LINEAR_STEP
    return _MEL_BREAK_HZ / _MEL_LINEAR_STEP + math.log(hz / _MEL_BREAK_HZ) / _MEL_LOG_STEP


def _mel_to_hz(mel: float) -> float:
    break_mel = _MEL_BREAK_HZ / _MEL_LINEAR_STEP
    if mel < break_mel:
        return mel * _MEL_LINEAR_STEP
    return _MEL_BREAK_HZ * math.exp(_MEL_LOG_STEP * (mel - break_mel))
