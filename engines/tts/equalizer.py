"""A cloned voice's spectral matching, applied to everything it says.

The voice cloner stores, in the voice's style (``extra``), per-band gains
``eq_db`` (mel bands, measured at ``eq_rate``) that give the voice its
sample's long-term spectrum; :func:`apply_matching` applies them as a
zero-phase STFT equaliser. The stored pitch offset (``pitch_semitones``) is
applied by the engine call and :func:`~engines.tts.prosody.shift_pitch`,
not here. How the gains are measured: :mod:`engines.voice.matching`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engines.mel import mel_filterbank

N_FFT = 1024
HOP = 256
#: Peak the equalised audio is limited to.
PEAK = 0.89


def apply_eq(audio: np.ndarray, rate: int, gains_db: list[float], analysis_rate: int) -> np.ndarray:
    """Filter ``audio`` by the band gains (interpolated over frequency; flat above ``analysis_rate``/2)."""
    from scipy.signal import istft, stft

    if not gains_db or len(audio) < N_FFT:
        return audio
    bank = mel_filterbank(analysis_rate, N_FFT, len(gains_db))
    centres = (np.argmax(bank, axis=1) * analysis_rate / N_FFT).astype(np.float64)
    _, _, z = stft(audio, fs=rate, nperseg=N_FFT, noverlap=N_FFT - HOP)
    freqs = np.linspace(0, rate / 2, z.shape[0])
    gains = np.interp(freqs, centres, np.asarray(gains_db, dtype=np.float64), left=gains_db[0], right=0.0)
    _, out = istft(z * (10 ** (gains / 20))[:, None], fs=rate, nperseg=N_FFT, noverlap=N_FFT - HOP)
    out = out[: len(audio)].astype(np.float32)
    peak = float(np.max(np.abs(out))) if len(out) else 0.0
    return out * np.float32(PEAK / peak) if peak > PEAK else out


def apply_matching(audio: np.ndarray, rate: int, extra: dict[str, Any]) -> np.ndarray:
    """``audio`` (at ``rate``) with a cloned voice's stored equaliser; unchanged for voices without one."""
    eq = extra.get("eq_db")
    return apply_eq(audio, rate, eq, int(extra.get("eq_rate", rate))) if eq else audio
