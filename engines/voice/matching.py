"""Signal-level matching of a fitted voice to its sample: pitch level and spectral envelope.

The style search moves timbre inside what Kokoro can say; two things it
cannot reach are matched on the signal afterwards, and kept only when the fit
encoder scores the matched probe higher than the unmatched one:

* **pitch level**: the semitone difference between the sample's median F0 and
  the voice's (YIN, :mod:`.gender`), within ±3 semitones, applied by the TTS
  pitch shift (:mod:`engines.tts.prosody`);
* **spectral envelope**: the long-term average spectrum of the sample's speech
  over that of the voice, in 24 mel bands, smoothed, level-neutral, within
  ±9 dB, applied as a zero-phase STFT equaliser. It carries the microphone and
  room colour the speaker encoders hear.

Both are stored in the voice's style (``extra``: ``pitch_semitones``, ``eq_db``)
and applied to everything the voice says by the TTS side
(:func:`engines.tts.equalizer.apply_matching`).
"""

from __future__ import annotations

import numpy as np

from engines.mel import mel_filterbank
from engines.speaker.gender import median_f0
from engines.tts.equalizer import HOP, N_FFT, apply_eq
from engines.tts.prosody import shift_pitch

BANDS = 24
MAX_EQ_DB = 9.0
MAX_SEMITONES = 3.0


def pitch_offset(sample: np.ndarray, sample_rate: int, voice: np.ndarray, voice_rate: int) -> float:
    """Semitones to add to the voice so its median F0 meets the sample's (0.0 when either has no pitch)."""
    try:
        want, have = median_f0(sample, sample_rate), median_f0(voice, voice_rate)
    except ValueError:
        return 0.0
    if not (want > 0 and have > 0):
        return 0.0
    return float(np.clip(12 * np.log2(want / have), -MAX_SEMITONES, MAX_SEMITONES))


def band_levels(audio: np.ndarray, rate: int) -> np.ndarray:
    """Mean log energy (dB) per mel band over the louder frames of ``audio``."""
    spec = _power(audio)
    bank = mel_filterbank(rate, N_FFT, BANDS)
    bands = bank @ spec  # [BANDS, frames]
    frame_db = 10 * np.log10(spec.sum(axis=0) + 1e-12)
    loud = frame_db > frame_db.max() - 35
    return 10 * np.log10(bands[:, loud].mean(axis=1) + 1e-12)


def eq_curve(sample: np.ndarray, sample_rate: int, voice: np.ndarray, voice_rate: int) -> list[float]:
    """Per-band gains (dB) that give the voice the sample's long-term spectrum, judged at the voice's rate."""
    rate = min(sample_rate, voice_rate)
    diff = band_levels(_at(sample, sample_rate, rate), rate) - band_levels(_at(voice, voice_rate, rate), rate)
    smooth = np.convolve(np.pad(diff, 1, mode="edge"), np.ones(3) / 3, mode="valid")
    smooth -= smooth.mean()
    return [round(float(g), 2) for g in np.clip(smooth, -MAX_EQ_DB, MAX_EQ_DB)]


def matched_probe(audio: np.ndarray, rate: int, semitones: float, gains_db: list[float], analysis_rate: int) -> np.ndarray:
    """The probe as the matched voice would say it (pitch by resampling, then the equaliser)."""
    shifted = shift_pitch(audio, semitones) if semitones else audio
    return apply_eq(shifted, rate, gains_db, analysis_rate)


def _power(audio: np.ndarray) -> np.ndarray:
    from scipy.signal import stft

    _, _, z = stft(audio, nperseg=N_FFT, noverlap=N_FFT - HOP)
    return np.abs(z) ** 2


def _at(audio: np.ndarray, rate: int, target: int) -> np.ndarray:
    if rate == target:
        return audio
    import soxr

    return soxr.resample(audio, rate, target).astype(np.float32)
