"""Speech and background apart: DeepFilterNet3's speech estimate, and the mix minus it.

DeepFilterNet3 is a speech *enhancement* model: it attenuates, per
time-frequency bin, whatever is not speech. Its output is taken as the
speech stem and the residual ``mix - speech`` as the background (music,
effects, ambience), which the dubbed voice is laid over. ``denoise`` is
delay-compensated (same length and timing as its input), so the subtraction
lines up sample for sample; a misaligned subtraction would leave the speech
in the background as a comb-filtered echo.

Measured (tests/integration/dubbing; espeak-ng speech, 8.8 s at 24 kHz,
over a chord of sustained harmonic tones with slow envelopes 3 dB below):
speech SI-SDR 2.9 -> 10.7 dB, background -3.2 -> 6.8 dB. Music alone stays
in the background (background - mix is -28 dB; white noise -25 dB); clean
speech leaves a background 27 dB under the mix. Speed: 1.1 s for 8.8 s on
the 2-core test machine (RTF 0.12 at 24 kHz, resampling and state flushes included).

Long audio is processed in ``chunk_s`` pieces (30 s) so memory stays bounded
and progress can be reported: each piece is denoised with ``CONTEXT_S`` of
audio either side, so the model's running normalisation has settled (1 s
time constant) and its look-ahead is real audio where the piece is used;
neighbouring pieces are cross-faded linearly over ``CROSSFADE_S`` around
their boundary (the weights sum to one). Cost: (chunk + 2 × context) / chunk,
about 1.13× a single pass; pieces of 2.5 s gave a speech estimate within
-22.6 dB of one pass. A 3 h track at 48 kHz is ~2 GB of float32 per stem;
the working set beyond the stems is one piece.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from engines.audio.decode import AudioClip
from engines.audio.denoise import DeepFilterDenoiser

CHUNK_S = 30.0
CONTEXT_S = 2.0
CROSSFADE_S = 0.5


def separate(
    samples: np.ndarray,
    rate: int,
    denoiser: DeepFilterDenoiser,
    *,
    on_progress: Callable[[float], None] | None = None,
    chunk_s: float = CHUNK_S,
) -> tuple[np.ndarray, np.ndarray]:
    """``(speech, background)`` of mono ``samples`` at ``rate`` Hz, both as long as the input.

    ``speech + background == samples`` (up to float32 rounding). ``on_progress``
    is called with the fraction done (0 < f <= 1) after each piece.

    Raises:
        ValueError: ``chunk_s`` is too short for the context and cross-fade.
        EngineUnavailable / EngineFailure: from the denoiser.
    """
    if chunk_s < 2 * CROSSFADE_S:
        raise ValueError(f"chunk_s must be at least {2 * CROSSFADE_S} s, got {chunk_s}")
    mix = np.asarray(samples, dtype=np.float32)
    total = len(mix)
    speech = np.zeros(total, dtype=np.float32)
    hop, context, half = round(chunk_s * rate), round(CONTEXT_S * rate), round(CROSSFADE_S * rate / 2)
    bounds = list(range(0, total, hop))
    if len(bounds) > 1 and total - bounds[-1] <= 2 * half:
        bounds.pop()  # a sliver at the end joins the previous piece, so every cross-fade fits
    bounds.append(total)
    for k, (core_start, core_end) in enumerate(itertools.pairwise(bounds)):
        first, last = k == 0, core_end == total
        use_start, use_end = (core_start if first else core_start - half), (total if last else core_end + half)
        read_start, read_end = max(0, core_start - context), min(total, core_end + context)
        piece = denoiser.denoise(AudioClip(mix[read_start:read_end], rate)).samples
        weight = _weights(use_end - use_start, 0 if first else 2 * half, 0 if last else 2 * half)
        speech[use_start:use_end] += weight * piece[use_start - read_start : use_end - read_start]
        if on_progress is not None:
            on_progress(core_end / total)
    return speech, mix - speech


def _weights(length: int, fade_in: int, fade_out: int) -> np.ndarray:
    """Ones, with linear ramps over the first ``fade_in`` and last ``fade_out`` samples (complementary across a boundary)."""
    w = np.ones(length, dtype=np.float32)
    if fade_in:
        w[:fade_in] = (np.arange(fade_in, dtype=np.float32) + 0.5) / fade_in
    if fade_out:
        w[length - fade_out :] = (np.arange(fade_out, 0, -1, dtype=np.float32) - 0.5) / fade_out
    return w
