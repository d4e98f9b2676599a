"""Benchmark: shot-change detection's cost per minute of video, against a plain decode of the same file.

Two videos, built once and cached in var/bench/:

1. bench_video.py's 640x360 25 fps H.264 (x264 ultrafast, so no deblocking)
   + AAC video: one continuous testsrc2 shot, where nothing may be detected;
2. a 1280x720 25 fps H.264 (x264 veryfast at 3 Mbit/s: B-frames, CABAC,
   deblocking and a bit rate like most uploads) + AAC video of lavfi shots
   (test patterns, bars with a moving box, gradients, a pan, a fractal),
   with cuts at known frames.

For each, three times in turn: ``detect_shot_changes`` (ffprobe + ffmpeg) and
``ffmpeg -i file -f null -`` (every stream decoded, ffmpeg's default
threads). Prints the medians as seconds per minute of video, wall-clock and
CPU (user + system of the child processes), the ratio detection / decode,
and how many known cuts were found.

    .venv/bin/python loadtests/bench_scenes.py --minutes 5.5 --hd-minutes 3
"""

from __future__ import annotations

import argparse
import itertools
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.media.scenes import detect_shot_changes  # noqa: E402
from loadtests.bench_video import build_video  # noqa: E402

FPS = 25
RUNS = 3
#: lavfi shots of the 1280x720 video; ``{i}`` makes pad labels unique per shot.
SHOTS = (
    "testsrc2=s=1280x720:r=25",
    "smptehdbars=s=1280x720:r=25[bg{i}];color=yellow:s=120x120:r=25[box{i}];[bg{i}][box{i}]overlay=x='40+t*60':y=300",
    "gradients=s=1280x720:r=25:speed=0.02",
    "testsrc=s=1600x900:r=25,crop=1280:720:x='t*30':y='t*15'",
    "sierpinski=s=1280x720:r=25",
    "color=0x203060:s=1280x720:r=25[bg{i}];testsrc2=s=320x240:r=25[fg{i}];[bg{i}][fg{i}]overlay=x='t*60':y='80+t*20'",
)
#: Shot lengths in frames, cycled: 3.2-9.6 s.
LENGTHS = (175, 120, 240, 95, 150, 210, 130, 80)

T = TypeVar("T")


def build_hd_video(minutes: float) -> tuple[Path, list[float]]:
    """The cut video and its cut times; shots follow each other until ``minutes`` are filled."""
    total = round(minutes * 60 * FPS)
    lengths: list[int] = []
    for length in itertools.cycle(LENGTHS):
        lengths.append(min(length, total - sum(lengths)))
        if sum(lengths) >= total:
            break
    cuts = [frame / FPS for frame in itertools.accumulate(lengths[:-1])]
    out = ROOT / "var" / "bench" / f"shots_720p_{minutes:g}min.mp4"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        chains = [
            f"{SHOTS[k % len(SHOTS)].format(i=k)},trim=end_frame={n},setpts=PTS-STARTPTS,format=yuv420p,setsar=1[v{k}]"
            for k, n in enumerate(lengths)
        ]
        graph = ";".join(chains) + ";" + "".join(f"[v{k}]" for k in range(len(lengths))) + f"concat=n={len(lengths)}[v]"
        cmd = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-filter_complex", graph, "-f", "lavfi", "-i", "sine=frequency=440"]
        cmd += ["-map", "[v]", "-map", "0:a", "-c:v", "libx264", "-preset", "veryfast", "-b:v", "3M", "-pix_fmt", "yuv420p"]
        cmd += ["-c:a", "aac", "-b:a", "128k", "-t", f"{total / FPS}", str(out)]
        subprocess.run(cmd, check=True)
    return out, cuts


def timed(work: Callable[[], T]) -> tuple[float, float, T]:
    """(wall seconds, CPU seconds of the child processes, result) of one call."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = work()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, result


def plain_decode(video: Path) -> None:
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(video), "-f", "null", "-"], check=True)


def measure(label: str, video: Path, minutes: float, known_cuts: list[float]) -> None:
    detect: list[tuple[float, float]] = []
    decode: list[tuple[float, float]] = []
    found: tuple[float, ...] = ()
    for _ in range(RUNS):
        wall, cpu, found = timed(lambda: detect_shot_changes(video))
        detect.append((wall, cpu))
        wall, cpu, _ = timed(lambda: plain_decode(video))
        decode.append((wall, cpu))
    hits = sum(any(abs(t - cut) <= 1 / FPS + 1e-3 for t in found) for cut in known_cuts)
    mbits = video.stat().st_size * 8 / (minutes * 60) / 1e6
    print(f"\n{label}: {video.name}, {minutes:g} min, {mbits:.1f} Mbit/s")
    print(f"  detections {len(found)}: {hits} of {len(known_cuts)} known cuts found, {len(found) - hits} elsewhere")
    for what, index in (("wall", 0), ("CPU ", 1)):
        ours = statistics.median(run[index] for run in detect)
        bare = statistics.median(run[index] for run in decode)
        print(
            f"  {what}: detection {ours / minutes:6.2f} s/min, plain decode {bare / minutes:6.2f} s/min,"
            f" ratio {ours / bare:.2f}   (runs: {', '.join(f'{run[index]:.2f}' for run in detect)} s"
            f" vs {', '.join(f'{run[index]:.2f}' for run in decode)} s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.5, help="length of bench_video.py's 640x360 video")
    parser.add_argument("--hd-minutes", type=float, default=3.0, help="length of the 1280x720 video with cuts")
    args = parser.parse_args()
    measure("640x360 continuous shot (x264 ultrafast)", build_video(args.minutes), args.minutes, [])
    hd, cuts = build_hd_video(args.hd_minutes)
    measure("1280x720 with cuts (x264 veryfast)", hd, args.hd_minutes, cuts)


if __name__ == "__main__":
    main()
