"""Mono WAV tracks read and written a block at a time, so a dub's memory does not grow with the video.

A dubbed 3-hour video has 518 million samples per track at 48 kHz (2 GB of
float32 each: the original, the speech and background stems, the dub). The
dubbing steps therefore keep their tracks in files and hold ``BLOCK_S`` of
each at a time: :class:`WavTrack` reads any range (zero-padded outside the
file, so a track a few samples short of its nominal length reads as silence
there), and :func:`write_track` writes one from a function of the sample
range, block by block, atomically. ``soundfile`` (libsndfile) does the WAV
reading and writing, seeking by frame.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soundfile as sf

from engines.media.ffmpeg import _atomic_output

#: Samples held per track while a track is streamed (at 48 kHz: 5.8 MB of float32).
BLOCK_S = 30.0
#: Float tracks keep intermediate stems exact; the final track is 16-bit PCM, as the encoder takes it.
FLOAT, PCM_16 = "FLOAT", "PCM_16"


class WavTrack:
    """A range of a mono WAV file, read on demand.

    Args:
        path: the file.
        offset: the file's sample that is this track's sample 0.
        length: the track's length in samples (default: to the end of the file). Reads past the
            file's end, or before its start, return zeros.
    """

    def __init__(self, path: str | os.PathLike[str], *, offset: int = 0, length: int | None = None) -> None:
        info = sf.info(os.fspath(path))
        if info.channels != 1:
            raise ValueError(f"a track is mono, {path} has {info.channels} channels")
        self.path, self.rate, self.frames = Path(path), int(info.samplerate), int(info.frames)
        self.offset = int(offset)
        self.length = max(0, self.frames - self.offset) if length is None else int(length)

    def __len__(self) -> int:
        return self.length

    def read(self, lo: int, hi: int) -> np.ndarray:
        """Samples ``[lo, hi)`` of the track as float32, zeros where the file has none."""
        out = np.zeros(max(0, hi - lo), dtype=np.float32)
        start, stop = max(lo + self.offset, 0), min(hi + self.offset, self.frames, self.offset + self.length)
        if stop > start:
            with sf.SoundFile(os.fspath(self.path)) as f:
                f.seek(start)
                data = f.read(stop - start, dtype="float32", always_2d=False)
            at = start - (lo + self.offset)
            out[at : at + len(data)] = data
        return out

    def __getitem__(self, span: slice) -> np.ndarray:
        """``track[a:b]``, as on an array (step 1 only), so a track stands in for its samples."""
        lo, hi, step = span.indices(self.length)
        if step != 1:
            raise ValueError("a track is read with step 1")
        return self.read(lo, max(lo, hi))

    def view(self, lo: int, hi: int) -> WavTrack:
        """Samples ``[lo, hi)`` of this track as a track of their own (no copy)."""
        return WavTrack(self.path, offset=self.offset + lo, length=max(0, hi - lo))


def write_track(
    dst: str | os.PathLike[str],
    rate: int,
    length: int,
    block: Callable[[int, int], np.ndarray],
    *,
    subtype: str = FLOAT,
    block_s: float = BLOCK_S,
) -> WavTrack:
    """Write a ``length``-sample mono WAV whose samples ``[lo, hi)`` are ``block(lo, hi)``, one block at a time.

    ``block`` is called with consecutive ranges covering ``[0, length)``; what it returns is cut or
    zero-padded to the range. 16-bit output is clipped to [-1, 1]. The file appears under ``dst``
    only once complete.
    """
    step = max(1, round(block_s * rate))
    with _atomic_output(dst) as tmp, sf.SoundFile(os.fspath(tmp), "w", int(rate), 1, subtype, format="WAV") as f:
        for lo in range(0, length, step):
            hi = min(lo + step, length)
            data = np.zeros(hi - lo, dtype=np.float32)
            got = np.asarray(block(lo, hi), dtype=np.float32)[: hi - lo]
            data[: len(got)] = got
            f.write(np.clip(data, -1.0, 1.0) if subtype == PCM_16 else data)
    return WavTrack(dst)
