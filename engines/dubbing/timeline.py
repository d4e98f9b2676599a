"""The dub's tracks built a block at a time: lines laid on the timeline, mixed over the background, spliced in.

These are ``mixdown``'s ``assemble``, ``mix`` and ``splice`` for tracks in
WAV files (``wav_track``), giving the same samples: each placed line is kept
on disk as a :class:`Clip` (its ramps and fade already applied), a block of
the dub track sums the clips that reach into it, and a block of the final
track is the original's block with the limited mix cross-faded in. Memory
holds one block of each track and the clips of one block, at any length of
video.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engines.dubbing.mixdown import SPLICE_FADE_S, PlacedLine, limit_range, ramped, rise
from engines.dubbing.wav_track import FLOAT, PCM_16, WavTrack, write_track


@dataclass(frozen=True)
class Clip:
    """A placed line kept in a ``.npy`` file: its samples (ramps applied) start at sample ``start`` of the dub."""

    start: int
    length: int
    path: Path

    @property
    def end(self) -> int:
        return self.start + self.length

    def read(self, lo: int, hi: int) -> np.ndarray:
        """The clip's samples ``[lo, hi)`` (its own indices), read from the file and no more."""
        data = np.load(self.path, mmap_mode="r")
        return np.array(data[lo:hi], dtype=np.float32)


def save_clip(line: PlacedLine, rate: int, path: str | os.PathLike[str]) -> Clip:
    """``line`` with the ramps ``assemble`` gives it, written to ``path`` (``.npy``)."""
    audio = ramped(np.asarray(line.samples, dtype=np.float32), rate, line.fade_out_s)
    np.save(path, audio, allow_pickle=False)
    return Clip(round(line.start * rate), len(audio), Path(path))


def lay_clips(clips: Sequence[Clip], rate: int, length: int, dst: str | os.PathLike[str]) -> WavTrack:
    """``assemble`` of the clips into a ``length``-sample float WAV track: parts outside it are dropped."""
    ordered = sorted(clips, key=lambda clip: clip.start)
    starts = [clip.start for clip in ordered]
    longest = max((clip.length for clip in ordered), default=0)

    def block(lo: int, hi: int) -> np.ndarray:
        out = np.zeros(hi - lo, dtype=np.float32)
        for clip in ordered[bisect.bisect_left(starts, lo - longest) : bisect.bisect_left(starts, hi)]:
            a, b = max(clip.start, lo), min(clip.end, hi)
            if b > a:
                out[a - lo : b - lo] += clip.read(a - clip.start, b - clip.start)
        return out

    return write_track(dst, rate, length, block, subtype=FLOAT)


def mix_into(
    original: WavTrack,
    dub: WavTrack,
    background: WavTrack | None,
    ratio: float,
    start_s: float,
    end_s: float | None,
    dst: str | os.PathLike[str],
) -> WavTrack:
    """``splice(original, mix(dub, background, ratio), start_s, end_s)`` as a 16-bit WAV track.

    ``dub`` and ``background`` start at media time ``start_s``; the mix is as long as ``dub`` (the
    background cut to it) and is limited there; the original stays outside ``[start_s, end_s)``.
    """
    rate, n, length = original.rate, len(original), len(dub)
    lo = min(max(round(start_s * rate), 0), n)
    hi = n if end_s is None else min(max(round(end_s * rate), lo), n)
    fade = min(round(SPLICE_FADE_S * rate), (hi - lo) // 2)
    ramp = rise(fade)

    def mixed(a: int, b: int) -> np.ndarray:
        out = dub.read(a, b)
        if background is not None and ratio != 0:
            out += np.float32(ratio) * background.read(a, b)
        return out

    def weights(a: int, b: int) -> np.ndarray:
        """The splice's weight of the mix at span samples ``[a, b)``."""
        w = np.ones(b - a, dtype=np.float32)
        at = np.arange(a, b)
        if lo > 0 and fade:
            w[at < fade] = ramp[at[at < fade]]
        tail = at >= (hi - lo) - fade
        if hi < n and fade and tail.any():
            w[tail] = np.minimum(w[tail], ramp[::-1][at[tail] - ((hi - lo) - fade)])
        return w

    def block(a: int, b: int) -> np.ndarray:
        out = original.read(a, b)
        c, d = max(a, lo), min(b, hi)
        if d > c:
            inside = np.zeros(d - c, dtype=np.float32)
            part = limit_range(mixed, c - lo, min(d - lo, length), length, rate) if c - lo < length else inside[:0]
            inside[: len(part)] = part
            w = weights(c - lo, d - lo)
            out[c - a : d - a] = (1 - w) * out[c - a : d - a] + w * inside
        return out

    return write_track(dst, rate, n, block, subtype=PCM_16)
