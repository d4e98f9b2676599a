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
-22.6 dB of one pass. A 3 h track at 48 kHz is ~2 GB of float32 per stem, so
``separate_track`` reads the mix from a WAV file and writes both stems to WAV
files as the pieces are done: the working set is one piece, at any length.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable

import numpy as np
import soundfile as sf

from engines.audio.decode import AudioClip
from engines.audio.denoise import DeepFilterDenoiser
from engines.dubbing.wav_track import WavTrack

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
    mix = np.asarray(samples, dtype=np.float32)
    speech = np.zeros(len(mix), dtype=np.float32)

    def keep(lo: int, part: np.ndarray) -> None:
        speech[lo : lo + len(part)] = part

    separate_stream(lambda lo, hi: mix[lo:hi], len(mix), rate, denoiser, keep, on_progress=on_progress, chunk_s=chunk_s)
    return speech, mix - speech


def separate_track(
    source: WavTrack,
    speech_dst: str | os.PathLike[str],
    background_dst: str | os.PathLike[str],
    denoiser: DeepFilterDenoiser,
    *,
    on_progress: Callable[[float], None] | None = None,
    chunk_s: float = CHUNK_S,
) -> tuple[WavTrack, WavTrack]:
    """``separate`` from a track on disk to two float WAV tracks as long as it, one piece in memory at a time."""
    rate = source.rate
    with (
        sf.SoundFile(os.fspath(speech_dst), "w", samplerate=rate, channels=1, subtype="FLOAT", format="WAV") as speech,
        sf.SoundFile(os.fspath(background_dst), "w", samplerate=rate, channels=1, subtype="FLOAT", format="WAV") as background,
    ):
        at = 0

        def keep(lo: int, part: np.ndarray) -> None:
            nonlocal at
            assert lo == at, "pieces arrive in order"
            speech.write(part)
            background.write(source.read(lo, lo + len(part)) - part)
            at = lo + len(part)

        separate_stream(source.read, len(source), rate, denoiser, keep, on_progress=on_progress, chunk_s=chunk_s)
    return WavTrack(speech_dst), WavTrack(background_dst)


def separate_stream(
    read: Callable[[int, int], np.ndarray],
    total: int,
    rate: int,
    denoiser: DeepFilterDenoiser,
    keep: Callable[[int, np.ndarray], None],
    *,
    on_progress: Callable[[float], None] | None = None,
    chunk_s: float = CHUNK_S,
) -> None:
    """The speech estimate of ``total`` samples read by ``read(lo, hi)``, handed to ``keep(lo, speech)`` in
    consecutive, final pieces: each piece's cross-fade with the next is held back until that one is done."""
    if chunk_s < 2 * CROSSFADE_S:
        raise ValueError(f"chunk_s must be at least {2 * CROSSFADE_S} s, got {chunk_s}")
    hop, context, half = round(chunk_s * rate), round(CONTEXT_S * rate), round(CROSSFADE_S * rate / 2)
    bounds = list(range(0, total, hop))
    if len(bounds) > 1 and total - bounds[-1] <= 2 * half:
        bounds.pop()  # a sliver at the end joins the previous piece, so every cross-fade fits
    bounds.append(total)
    held = np.zeros(0, dtype=np.float32)  # the previous piece's share of the cross-fade into this one
    for k, (core_start, core_end) in enumerate(itertools.pairwise(bounds)):
        first, last = k == 0, core_end == total
        use_start, use_end = (core_start if first else core_start - half), (total if last else core_end + half)
        read_start, read_end = max(0, core_start - context), min(total, core_end + context)
        piece = denoiser.denoise(AudioClip(read(read_start, read_end), rate)).samples
        weight = _weights(use_end - use_start, 0 if first else 2 * half, 0 if last else 2 * half)
        part = weight * piece[use_start - read_start : use_end - read_start]
        part[: len(held)] += held
        final = len(part) if last else len(part) - 2 * half
        keep(use_start, part[:final])
        held = part[final:]
        if on_progress is not None:
            on_progress(core_end / total)


def _weights(length: int, fade_in: int, fade_out: int) -> np.ndarray:
    """Ones, with linear ramps over the first ``fade_in`` and last ``fade_out`` samples (complementary across a boundary)."""
    w = np.ones(length, dtype=np.float32)
    if fade_in:
        w[:fade_in] = (np.arange(fade_in, dtype=np.float32) + 0.5) / fade_in
    if fade_out:
        w[length - fade_out :] = (np.arange(fade_out, 0, -1, dtype=np.float32) - 0.5) / fade_out
    return w
