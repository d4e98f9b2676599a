"""Benchmark: the 5.5-minute real-speech video dubbed en → es through the service, split by stage.

Same video and service as ``loadtests/bench_video.py`` (configs/local.yaml's engines: Whisper base,
the LLM translator, Kokoro, DeepFilterNet), in one run:

1. the video to SRT (no dubbing): the baseline;
2. the same video with ``enable_dubbing=true`` (``dubbing_bg_music`` 0.3: separation included).

Prints each job's wall time / video duration (goal for the dub on 2 cores: ≤ 1.0), the ratio
dub / baseline, and the seconds per stage (seen by polling the task every 0.25 s).

    PYTHONPATH=. .venv/bin/python loadtests/bench_dubbing.py --minutes 5.5
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.bench_video import build_video, service_job  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=5.5)
    parser.add_argument("--voice", default="default-female")
    args = parser.parse_args()
    video = build_video(args.minutes)
    duration = args.minutes * 60
    jobs = service_job(
        video,
        {
            "subtitles": {"output_format": "srt"},
            "dubbing": {"output_format": "srt", "enable_dubbing": "true", "dubbing_voice": args.voice},
        },
    )
    print(f"\nvideo duration {duration:.1f} s (en → es)")
    for label, (wall, task, stages) in jobs.items():
        assert task["status"] == "completed", task
        split = ", ".join(f"{stage} {seconds:.1f}" for stage, seconds in stages.items())
        print(f"{label:10} {wall:7.1f} s = {wall / duration:.3f} x duration   stages (s): {split}")
    print(f"ratio dubbing / subtitles: {jobs['dubbing'][0] / jobs['subtitles'][0]:.2f}")


if __name__ == "__main__":
    main()
