"""Shot changes (scene cuts) of a video, so that subtitle in and out times can snap to them.

ffmpeg decodes the first video stream, shrinks it to ``WIDTH`` pixels wide in
gray and prints, per frame, its mean absolute difference from the previous
frame (``scdet``'s ``mafd``, in percent of full scale). Shrinking first makes
the decode the only real cost and evens out fine detail and noise, which
full-size frames count as change.

A frame starts a new shot when its difference exceeds every difference
within ``SPAN`` frames either side by ``threshold`` points: a cut is one
big jump between two shots, while motion differs steadily from frame to
frame. ``scdet``'s own score compares with the previous frame only, so it
also fires on the frame after a cut into fast motion, and wherever fast
motion resumes after a repeated frame (frame-rate conversion, a freeze);
looking two frames ahead and back also passes over a repeated frame next
to the one tested. A flash of a frame or two jumps in and straight back
out, and is not taken for a cut either.

Cost, measured by ``loadtests/bench_scenes.py`` (H.264, 25 fps, 2 cores):
0.6 CPU seconds per minute of 640x360 video (1.9 Mbit/s) and 3.3 per minute
of 1280x720 (3 Mbit/s), about 0.4 and 2 s of wall time per minute on idle
cores: 1.0-1.25 x a plain ``ffmpeg -i file -f null -`` decode of the same
file. Decoding is nearly all of it; ``-skip_loop_filter all`` (no
deblocking, which moves the differences by under 0.1 at this size) saves
0-15 % of it, depending on how much the encoder deblocked.
"""

from __future__ import annotations

import os
import re
import time

from engines.errors import EngineTimeout
from engines.media.ffmpeg import FFMPEG, _input, check_exit, run_tool, untrusted_input
from engines.media.probe import FFPROBE

#: Points (percent of full scale) by which a cut's difference must exceed those around it.
#: The default of ``scdet``'s own score, in the same units, and close to PySceneDetect's
#: (27 of 255, 10.6 %). On the test material cuts stand out by 15-45 points, and frames
#: inside moving shots (pans, zooms, fractals, cellular automata) by under 1.
THRESHOLD = 10.0
#: Width of the frames compared; height follows the aspect ratio.
WIDTH = 160
#: Frames either side whose differences a cut must exceed (see the module docstring).
SPAN = 2
#: Decoder threads: detection runs next to other stages on small CPU workers.
THREADS = 2

_AVTB = 1_000_000  # ffmpeg's microsecond time base (``settb=AVTB``)
#: One ``metadata=print`` record: ``frame:7 pts:280000 pts_time:0.28`` then ``lavfi.scd.mafd=1.234``.
_RECORD = re.compile(rb"^frame:\s*\d+\s+pts:\s*(\S+).*\n\s*lavfi\.scd\.mafd=(\S+)", re.MULTILINE)


def detect_shot_changes(
    path: str | os.PathLike[str],
    *,
    video_index: int | None = None,
    threshold: float = THRESHOLD,
    timeout_s: float = 600,
) -> tuple[float, ...]:
    """Times in seconds where a new shot starts: sorted, distinct, never 0.

    Times are the frames' own timestamps on the timeline ``extract_audio``
    and ``burn_subtitles`` use (ffmpeg's: the file starts at 0), exact to the
    microsecond at any frame rate. ``video_index`` is an absolute stream
    index; by default the first video stream that is not cover art is used,
    and a file without one gives ``()``. ``timeout_s`` bounds the whole call.

    Raises:
        InvalidInput: the file does not exist.
        EngineFailure: ffprobe/ffmpeg could not read or decode the file
            (including a format outside the video demuxers).
        EngineUnavailable / EngineTimeout: ffprobe/ffmpeg is not installed, was
            killed, or did not finish within ``timeout_s``.
    """
    if not 0 < threshold <= 100:
        raise ValueError(f"threshold must be in (0, 100], got {threshold}")
    src = _input(path)
    deadline = time.monotonic() + timeout_s
    if video_index is None:
        video_index = _first_video_index(src, timeout_s)
        if video_index is None:
            return ()
    left = deadline - time.monotonic()
    if left <= 0:
        raise EngineTimeout(f"{FFPROBE} did not list the video streams within {timeout_s:g}s")
    return cuts(_frame_differences(src, video_index, left), threshold)


def _first_video_index(src: str, timeout_s: float) -> int | None:
    """The absolute index of the first video stream that is not an attached picture (``V``)."""
    what = "list the video streams"
    cmd = [FFPROBE, "-v", "error", *untrusted_input(), "-select_streams", "V", "-show_entries", "stream=index"]
    cmd += ["-of", "csv=p=0", src]
    proc = run_tool(cmd, timeout_s=timeout_s, what=what)
    check_exit(proc, cmd, what=what)
    indexes = proc.stdout.split()
    return int(indexes[0]) if indexes else None


def _frame_differences(src: str, video_index: int, timeout_s: float) -> list[tuple[float | None, float]]:
    """(timestamp in seconds or None, mafd in percent) of every frame, in presentation order."""
    what = "detect shot changes"
    graph = f"scale={WIDTH}:-2:flags=bilinear,format=gray,scdet,settb=AVTB,metadata=mode=print:key=lavfi.scd.mafd:file=-"
    cmd = [FFMPEG, "-nostdin", "-hide_banner", "-loglevel", "error", "-threads", str(THREADS), "-skip_loop_filter", "all"]
    cmd += [*untrusted_input(), "-i", src, "-map", f"0:{video_index}", "-an", "-sn", "-dn", "-filter_threads", "1"]
    cmd += ["-vf", graph, "-f", "null", "-"]
    proc = run_tool(cmd, timeout_s=timeout_s, what=what)
    check_exit(proc, cmd, what=what)
    return [(int(pts) / _AVTB if pts.lstrip(b"-").isdigit() else None, float(mafd)) for pts, mafd in _RECORD.findall(proc.stdout)]


def cuts(frames: list[tuple[float | None, float]], threshold: float = THRESHOLD) -> tuple[float, ...]:
    """Times of the frames whose difference exceeds all those ``SPAN`` frames around by ``threshold`` (pure)."""
    diffs = [mafd for _, mafd in frames]
    found = set()
    for k, (t, mafd) in enumerate(frames):
        around = diffs[max(k - SPAN, 0) : k] + diffs[k + 1 : k + 1 + SPAN]
        if k > 0 and t is not None and t > 0 and mafd - max(around, default=0.0) >= threshold:
            found.add(t)
    return tuple(sorted(found))
