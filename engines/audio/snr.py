"""Signal-to-noise ratio of a voice sample, from its speech segments.

The estimate compares the power of the frames where the VAD heard speech with
the power of the background:

1. The clip (DC removed) is cut into 20 ms frames; each frame's mean power is taken.
2. Noise power: the mean power of the frames lying wholly outside every speech
   segment widened by ``GUARD_S`` (so syllable tails the VAD padded too little
   stay out), when those frames add up to at least ``MIN_NOISE_S``; otherwise,
   for a sample that is nearly all speech, the ``NOISE_PERCENTILE``-th
   percentile of all frame powers (the pauses between words).
3. Signal power: the mean power of the frames whose centre lies in a speech
   segment, less the noise power (the noise is in those frames too).
4. SNR = 10·log10(signal / noise), clipped to [``MIN_DB``, ``MAX_DB``]. Frames of
   digital silence (every sample exactly zero) count as zero noise power, which
   the DC removal alone would not give them; a background that is all digital
   silence, or under ``SILENCE_POWER``, gives ``MAX_DB``. No speech frames, or
   speech no louder than the noise, gives ``MIN_DB``.

``docs/voice-samples.md`` records how close this lands to the true SNR of
speech mixed with white, pink, brown, hum and fluctuating noise.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engines.audio.decode import AudioClip

FRAME_S = 0.02
GUARD_S = 0.1
MIN_NOISE_S = 1.0
NOISE_PERCENTILE = 10.0
#: Background frames louder than this percentile of the background (breaths, clicks, reverb tails) are left out.
NOISE_TRIM_PERCENTILE = 80.0
MIN_DB = -10.0
MAX_DB = 80.0
#: Mean frame power treated as digital silence (-120 dBFS).
SILENCE_POWER = 1e-12


def estimate_snr_db(clip: AudioClip, speech: Sequence[tuple[float, float]]) -> float:
    """The sample's SNR in dB, from ``speech`` segments (seconds) as ``SileroVad.speech_segments`` returns them."""
    powers, silent = frame_powers(clip), _silent_frames(clip)
    if powers.size == 0:
        return MIN_DB
    starts = np.arange(powers.size) * FRAME_S
    in_speech = _covered(starts + FRAME_S / 2, starts + FRAME_S / 2, speech, 0.0)
    if not in_speech.any():
        return MIN_DB
    noise = _noise_power(np.where(silent, 0.0, powers), starts, speech)
    if noise < SILENCE_POWER:
        return MAX_DB
    signal = float(powers[in_speech].mean()) - noise
    if signal <= 0:
        return MIN_DB
    return float(np.clip(10.0 * np.log10(signal / noise), MIN_DB, MAX_DB))


def frame_powers(clip: AudioClip, frame_s: float = FRAME_S) -> np.ndarray:
    """Mean power of each whole ``frame_s`` frame of the clip, its DC offset removed."""
    samples = clip.samples.astype(np.float64)
    frames = _frames(samples - samples.mean() if samples.size else samples, clip.sample_rate, frame_s)
    return np.mean(frames * frames, axis=1)


def _silent_frames(clip: AudioClip, frame_s: float = FRAME_S) -> np.ndarray:
    """Frames of digital silence: every sample exactly zero (the DC removal would make them non-zero)."""
    return np.logical_not(_frames(clip.samples, clip.sample_rate, frame_s).any(axis=1))


def _frames(samples: np.ndarray, rate: int, frame_s: float) -> np.ndarray:
    size = max(1, round(frame_s * rate))
    count = len(samples) // size
    return samples[: count * size].reshape(count, size)


def _noise_power(powers: np.ndarray, starts: np.ndarray, speech: Sequence[tuple[float, float]]) -> float:
    """Mean power of the quieter background frames (the loudest, breaths and clicks, are not noise), else a low percentile."""
    near_speech = _covered(starts, starts + FRAME_S, speech, GUARD_S)
    background = powers[~near_speech]
    if background.size * FRAME_S >= MIN_NOISE_S:
        return float(background[background <= np.percentile(background, NOISE_TRIM_PERCENTILE)].mean())
    return float(np.percentile(powers, NOISE_PERCENTILE))


def _covered(lo: np.ndarray, hi: np.ndarray, segments: Sequence[tuple[float, float]], widen: float) -> np.ndarray:
    """Which spans ``[lo, hi]`` touch a segment widened by ``widen`` on both sides."""
    hit = np.zeros(lo.shape, dtype=bool)
    for start, end in segments:
        hit |= (hi >= start - widen) & (lo <= end + widen)
    return hit
