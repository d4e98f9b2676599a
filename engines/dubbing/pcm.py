"""Mono float32 samples through an ffmpeg audio filter: the shared plumbing of ``tempo`` and ``loudness``.

ffmpeg reads the samples as raw little-endian float32 from a temporary file
(``run_tool`` takes no stdin; a file also avoids pipe deadlocks on long audio)
and writes raw float32 to stdout, or nothing (``-f null``) when only the
filter's log matters. ``run_filter_file`` does the same from a WAV file to a
float WAV file, so a whole track goes through a filter without being held in
memory. Filter graphs hold numbers only, formatted by the callers.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from engines.media.ffmpeg import FFMPEG, _atomic_output, check_exit, run_tool


def run_filter(
    samples: np.ndarray,
    rate: int,
    graph: str,
    *,
    timeout_s: float,
    what: str,
    out_rate: int | None = None,
    keep_log: bool = False,
) -> tuple[np.ndarray, bytes]:
    """``samples`` (mono, ``rate`` Hz) through the audio filter ``graph``.

    Returns the filtered samples as float32 at ``out_rate`` (default ``rate``;
    an empty array when ``out_rate`` is 0, which discards the audio) and
    ffmpeg's stderr (at log level ``info`` when ``keep_log``, for filters that
    report there, else ``error``).

    Raises:
        EngineFailure: ffmpeg exited non-zero.
        EngineUnavailable: ffmpeg is not installed, or was stopped by a signal.
        EngineTimeout: ffmpeg did not finish within ``timeout_s``.
    """
    data = np.ascontiguousarray(samples, dtype="<f4")
    with tempfile.TemporaryDirectory(prefix="dub-pcm-") as tmp:
        src = Path(tmp) / "in.f32"
        data.tofile(src)
        cmd = [FFMPEG, "-nostdin", "-hide_banner", "-nostats", "-loglevel", "info" if keep_log else "error"]
        cmd += ["-f", "f32le", "-ar", str(int(rate)), "-ac", "1", "-i", os.fspath(src), "-af", graph]
        if out_rate == 0:
            cmd += ["-f", "null", "-"]
        else:
            cmd += ["-ar", str(int(out_rate or rate)), "-ac", "1", "-c:a", "pcm_f32le", "-f", "f32le", "pipe:1"]
        proc = run_tool(cmd, timeout_s=timeout_s, what=what)
    check_exit(proc, cmd, what=what)
    out = np.frombuffer(proc.stdout, dtype="<f4", count=len(proc.stdout) // 4).astype(np.float32)
    return out, proc.stderr


def run_filter_file(
    src: str | os.PathLike[str],
    graph: str,
    dst: str | os.PathLike[str] | None,
    *,
    rate: int,
    timeout_s: float,
    what: str,
    keep_log: bool = False,
) -> bytes:
    """The mono WAV ``src`` through the audio filter ``graph`` into ``dst`` (float WAV at ``rate`` Hz,
    written atomically), or into nothing when ``dst`` is None; returns ffmpeg's stderr as ``run_filter`` does.

    Raises:
        EngineFailure / EngineUnavailable / EngineTimeout: as ``run_filter``.
    """
    cmd = [FFMPEG, "-nostdin", "-hide_banner", "-nostats", "-loglevel", "info" if keep_log else "error"]
    cmd += ["-i", os.fspath(Path(src).absolute()), "-af", graph]
    if dst is None:
        proc = run_tool([*cmd, "-f", "null", "-"], timeout_s=timeout_s, what=what)
        check_exit(proc, cmd, what=what)
        return proc.stderr
    with _atomic_output(dst) as tmp:
        cmd += ["-ar", str(int(rate)), "-ac", "1", "-c:a", "pcm_f32le", "-f", "wav", os.fspath(tmp)]
        proc = run_tool(cmd, timeout_s=timeout_s, what=what)
        check_exit(proc, cmd, what=what)
    return proc.stderr
