"""The final audio track: dubbed lines on a timeline, over the background, spliced into the original.

* ``assemble`` lays each placed line (already sped up and truncated, at the
  track rate) at its start sample on a silent track of the media's length.
  Every line gets ``EDGE_S`` ramps at both ends (a synthesized line cut by
  the planner, or starting on a non-zero sample, would click) and its own
  ``fade_out_s`` when the caller asks for one. Lines are summed, so an
  overlap (the planner never makes one) is audible rather than lost.
* ``mix`` adds ``ratio`` × the background (``separation``) and limits
  peaks to ``CEILING_DB`` with a look-ahead limiter: the gain each sample
  needs to stay under the ceiling is spread by a minimum filter over
  ±``LOOKAHEAD_S`` and smoothed by a moving average half that long, so it
  falls *before* a peak and recovers after it (no hard clipping) and is
  exactly 1 more than 1.5 × ``LOOKAHEAD_S`` away from any peak: levels under
  the ceiling are unchanged.
* ``splice`` keeps the original audio outside ``[start, end)`` and the mix
  (the audio of that range) inside, with ``SPLICE_FADE_S`` raised-cosine cross-fades at the edges, for
  dubbing one part of a video.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.ndimage import minimum_filter1d, uniform_filter1d

from engines.media.ffmpeg import _atomic_output

EDGE_S = 0.005
CEILING_DB = -1.0
LOOKAHEAD_S = 0.02
SPLICE_FADE_S = 0.02


@dataclass(frozen=True)
class PlacedLine:
    """One dubbed line: mono float32 at the track rate, tempo applied and truncated, starting at ``start`` seconds."""

    start: float
    samples: np.ndarray
    fade_out_s: float = 0.0


def assemble(lines: Sequence[PlacedLine], rate: int, duration_s: float) -> np.ndarray:
    """The dub speech track: exactly ``round(duration_s * rate)`` samples, each line at its start sample.

    Parts of lines before 0 or after the end are dropped.
    """
    track = np.zeros(max(0, round(duration_s * rate)), dtype=np.float32)
    for line in lines:
        audio = ramped(np.asarray(line.samples, dtype=np.float32), rate, line.fade_out_s)
        at = round(line.start * rate)
        lo, hi = max(at, 0), min(at + len(audio), len(track))
        if hi > lo:
            track[lo:hi] += audio[lo - at : hi - at]
    return track


def mix(dub: np.ndarray, background: np.ndarray | None, ratio: float, *, rate: int = 48_000) -> np.ndarray:
    """``dub + ratio × background``, peaks limited to ``CEILING_DB``; as long as ``dub``.

    ``background`` is cut or zero-padded to the dub's length; with ``ratio``
    0 or no background, the dub alone (still limited). ``rate`` only sets the
    limiter's time constants.
    """
    out = np.array(dub, dtype=np.float32)
    if background is not None and ratio != 0:
        bg = np.asarray(background, dtype=np.float32)[: len(out)]
        out[: len(bg)] += np.float32(ratio) * bg
    return limit(out, rate)


def limit(samples: np.ndarray, rate: int, ceiling_db: float = CEILING_DB) -> np.ndarray:
    """Look-ahead peak limiter (module docstring): ``max |out| <= ceiling``; untouched far from peaks."""
    ceiling = np.float32(10 ** (ceiling_db / 20))
    peak = np.abs(samples)
    if len(samples) == 0 or peak.max() <= ceiling:
        return samples
    need = np.minimum(np.float32(1.0), ceiling / np.maximum(peak, np.float32(1e-12)))
    reach = max(1, round(LOOKAHEAD_S * rate))
    gain = uniform_filter1d(minimum_filter1d(need, size=2 * reach + 1), size=reach + 1)
    gain[minimum_filter1d(need, size=3 * reach + 3) >= 1.0] = 1.0  # exactly 1 far from peaks
    out = samples * np.minimum(gain, need)  # the average is <= need at peaks; min() removes rounding
    return np.clip(out, -ceiling, ceiling)


def limit_range(
    read: Callable[[int, int], np.ndarray], lo: int, hi: int, total: int, rate: int, ceiling_db: float = CEILING_DB
) -> np.ndarray:
    """Samples ``[lo, hi)`` of ``limit`` over the whole ``total``-sample signal that ``read(a, b)`` returns,
    computed from ``[lo, hi)`` and a margin either side wider than the limiter's reach: the same samples,
    a block at a time."""
    margin = 2 * max(1, round(LOOKAHEAD_S * rate)) + 2
    a, b = max(0, lo - margin), min(total, hi + margin)
    return limit(read(a, b), rate, ceiling_db)[lo - a : hi - a]


def splice(original: np.ndarray, mixed: np.ndarray, rate: int, start_s: float, end_s: float | None) -> np.ndarray:
    """``original`` (the whole track) with ``[start_s, end_s)`` (to its end when None) replaced by ``mixed``.

    ``mixed`` is the audio of that range: its sample 0 is media time
    ``start_s`` (as ``assemble`` builds it for lines placed relative to
    ``start_s``); it is cut or zero-padded to the range. The edges cross-fade
    over ``SPLICE_FADE_S`` inside the range (none at the track's start or
    end). Returns a new array as long as ``original``.
    """
    out = np.array(original, dtype=np.float32)
    n = len(out)
    lo = min(max(round(start_s * rate), 0), n)
    hi = n if end_s is None else min(max(round(end_s * rate), lo), n)
    if hi <= lo:
        return out
    inside = np.zeros(hi - lo, dtype=np.float32)
    part = np.asarray(mixed, dtype=np.float32)[: hi - lo]
    inside[: len(part)] = part
    w = np.ones(hi - lo, dtype=np.float32)
    fade = min(round(SPLICE_FADE_S * rate), (hi - lo) // 2)
    ramp = rise(fade)
    if lo > 0 and fade:
        w[:fade] = ramp
    if hi < n and fade:
        w[len(w) - fade :] = np.minimum(w[len(w) - fade :], ramp[::-1])
    out[lo:hi] = (1 - w) * out[lo:hi] + w * inside
    return out


def write_wav(samples: np.ndarray, rate: int, path: str | os.PathLike[str]) -> Path:
    """Write mono ``samples`` as 16-bit PCM WAV (clipped to [-1, 1]), atomically; returns the absolute path."""
    import soundfile as sf

    with _atomic_output(path) as tmp:
        data = np.clip(np.asarray(samples, dtype=np.float32), -1.0, 1.0)
        sf.write(tmp, data, rate, subtype="PCM_16", format="WAV")
    return Path(path).absolute()


def ramped(audio: np.ndarray, rate: int, fade_out_s: float) -> np.ndarray:
    """``audio`` with ``EDGE_S`` ramps at both ends and a raised-cosine fade over its last ``fade_out_s``."""
    if len(audio) == 0:
        return audio
    out = audio.copy()
    edge = min(round(EDGE_S * rate), len(out) // 2)
    if edge:
        out[:edge] *= rise(edge)
    fade = min(max(round(fade_out_s * rate), edge), len(out))
    if fade:
        out[len(out) - fade :] *= rise(fade)[::-1]
    return out


def rise(length: int) -> np.ndarray:
    """A raised-cosine ramp from near 0 to near 1 over ``length`` samples (never exactly 0 or 1)."""
    return (0.5 - 0.5 * np.cos(np.pi * (np.arange(length, dtype=np.float32) + 0.5) / length)).astype(np.float32)
