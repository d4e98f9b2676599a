"""Benchmark: revising a finished video task against the job that made it (docs/video-revisions.md).

On the 5.5-minute real-speech video of ``loadtests/bench_video.py``, in one service run:

1. an SRT task (en → es), then a revision changing three translated lines of it;
2. a dubbed task, then a revision changing three translated lines of it (three lines spoken again, the
   others read back from the kept audio).

Prints each job's and each revision's wall time (submit to completed, polled every 0.25 s) and the ratio
revision / job (goals on 2 cores: ≤ 0.2 for subtitles, ≤ 0.3 for the dub), and the revision's stages.

    PYTHONPATH=. .venv/bin/python loadtests/bench_revision.py --minutes 5.5
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.bench_video import build_video, service_job  # noqa: E402

EDITED = 3


def revise(client: httpx.Client, task: dict) -> tuple[float, dict, dict[str, float]]:
    """Three translated lines (spread over the video) replaced; the revision's wall time, record and stages."""
    segments = client.get(f"/v1/video/task/{task['task_id']}/transcript").json()["segments"]
    picks = [segments[round(i * (len(segments) - 1) / (EDITED - 1))] for i in range(EDITED)]
    edits = [{"id": s["id"], "translation": f"Línea revisada número {n + 1}: {s['translation']}"} for n, s in enumerate(picks)]
    started = time.perf_counter()
    response = client.post(f"/v1/video/task/{task['task_id']}/revise", json={"segments": edits})
    if response.status_code != 200:
        raise SystemExit(f"revision refused: {response.status_code} {response.text}")
    revision_id = response.json()["task_id"]
    stages: dict[str, float] = {}
    last = started
    while True:
        record = client.get(f"/v1/video/task/{revision_id}").json()
        now = time.perf_counter()
        stage = record.get("stage") or record["status"]
        stages[stage] = stages.get(stage, 0.0) + now - last
        last = now
        if record["status"] in ("completed", "failed"):
            return now - started, record, stages
        time.sleep(0.25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=5.5)
    args = parser.parse_args()
    video = build_video(args.minutes)
    revisions: dict[str, tuple[float, dict, dict[str, float]]] = {}

    def on_done(label: str, task: dict, client: httpx.Client) -> None:
        assert task["status"] == "completed", task
        revisions[label] = revise(client, task)

    jobs = service_job(
        video,
        {"subtitles": {"output_format": "srt"}, "dubbing": {"output_format": "srt", "enable_dubbing": "true"}},
        on_done=on_done,
    )
    print(f"\nvideo {args.minutes * 60:.0f} s (en → es), {EDITED} translated lines changed per revision")
    for label, (wall, _task, _stages) in jobs.items():
        revised, record, stages = revisions[label]
        assert record["status"] == "completed", record
        split = ", ".join(f"{stage} {seconds:.1f}" for stage, seconds in stages.items())
        print(f"{label:10} job {wall:7.1f} s   revision {revised:6.1f} s   ratio {revised / wall:.3f}   stages (s): {split}")


if __name__ == "__main__":
    main()
