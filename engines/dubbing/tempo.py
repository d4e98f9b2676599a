"""Pitch-preserving speed-up of synthesized lines, with ffmpeg's ``atempo`` filter (WSOLA).

WSOLA (waveform-similarity overlap-add) cuts the signal into short windows
and overlaps them at a new spacing, choosing each window's offset where it
best matches the previous one; pitch and timbre are kept because the
waveform inside each window is untouched. At the speed-ups dubbing needs
(1.0-1.35×, ``fitting.MAX_TEMPO``) it is transparent on speech.

Why not the others: ``librosa.effects.time_stretch`` (installed) is a plain
phase vocoder without phase locking, which makes speech sound phasey and
reverberant; ffmpeg's ``rubberband`` filter runs librubberband in real-time
mode, which shifted a 220 Hz sine to 214 Hz at 1.35× and delays the output
by ~120 samples; ``audiotsm``, ``pytsmod`` and ``pyrubberband`` are not
installed. ``atempo`` measured on a 220 Hz sine at 1.35×: the dominant
frequency unchanged (within one FFT bin), length within 0.03 % of len/tempo.
"""

from __future__ import annotations

import math

import numpy as np

from engines.dubbing.pcm import run_filter

#: One ``atempo`` instance accepts 0.5-100 since ffmpeg 5; dubbing needs far less.
MIN_TEMPO = 0.5
MAX_TEMPO = 2.0


def change_tempo(samples: np.ndarray, rate: int, tempo: float, *, timeout_s: float = 60) -> np.ndarray:
    """``samples`` (mono float32) played ``tempo`` times as fast, same pitch; about ``len / tempo`` long.

    ``tempo == 1.0`` returns the input itself. The result is exactly
    ``round(len / tempo)`` samples (WSOLA's own length is within a few ms; it
    is cut or zero-padded at the end).

    Raises:
        ValueError: ``tempo`` is outside ``[MIN_TEMPO, MAX_TEMPO]`` or not finite.
        EngineFailure / EngineUnavailable / EngineTimeout: ffmpeg failed, is missing or too slow.
    """
    if not math.isfinite(tempo) or not MIN_TEMPO <= tempo <= MAX_TEMPO:
        raise ValueError(f"tempo must be within [{MIN_TEMPO}, {MAX_TEMPO}], got {tempo}")
    if tempo == 1.0 or len(samples) == 0:
        return samples
    out, _ = run_filter(samples, rate, f"atempo={tempo:.6f}", timeout_s=timeout_s, what="change the tempo")
    want = round(len(samples) / tempo)
    if len(out) >= want:
        return out[:want]
    return np.concatenate([out, np.zeros(want - len(out), dtype=np.float32)])
