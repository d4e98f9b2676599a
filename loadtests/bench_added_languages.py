"""Benchmark: adding languages to a finished video task against the task that recognized it (docs/video-languages.md).

On the 5.5-minute real-speech video of ``loadtests/bench_video.py``, in one service run: an SRT task (en → es),
then, one after another, the same video added in each of ``--languages`` (``POST …/translations``). Prints the
original task's wall time (submit to completed), each added language's, their ratio (goal: ≤ 0.3 each: an
added language pays for translation and rendering, not for extraction and recognition) and the stages each
was seen in (polled every 0.25 s; no ``extracting``/``recognizing`` may appear).

    PYTHONPATH=. .venv/bin/python loadtests/bench_added_languages.py --minutes 5.5 --languages de,fr,it
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


def add_language(client: httpx.Client, task_id: str, lang: str) -> tuple[float, dict, dict[str, float]]:
    """One added language polled to the end: wall time, final record, seconds per stage seen."""
    started = time.perf_counter()
    response = client.post(f"/v1/video/task/{task_id}/translations", json={"target_lang": lang})
    if response.status_code != 200:
        raise SystemExit(f"{lang} refused: {response.status_code} {response.text}")
    added = response.json()["task_id"]
    stages: dict[str, float] = {}
    last = started
    while True:
        record = client.get(f"/v1/video/task/{added}").json()
        now = time.perf_counter()
        stage = record.get("stage") or record["status"]
        stages[stage] = stages.get(stage, 0.0) + now - last
        last = now
        if record["status"] in ("completed", "failed", "expired"):
            return now - started, record, stages
        time.sleep(0.25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.5)
    parser.add_argument("--languages", default="de,fr,it", help="languages to add, comma-separated")
    args = parser.parse_args()
    languages = [code.strip() for code in args.languages.split(",") if code.strip()]
    video = build_video(args.minutes)
    added: dict[str, tuple[float, dict, dict[str, float]]] = {}

    def on_done(_label: str, task: dict, client: httpx.Client) -> None:
        assert task["status"] == "completed", task
        for lang in languages:
            added[lang] = add_language(client, task["task_id"], lang)

    jobs = service_job(video, {"subtitles": {"output_format": "srt"}}, on_done=on_done)
    wall, _task, stages = jobs["subtitles"]
    split = ", ".join(f"{stage} {seconds:.1f}" for stage, seconds in stages.items())
    print(f"\nvideo {args.minutes * 60:.0f} s; original task (en → es, srt): {wall:.1f} s   stages (s): {split}")
    for lang, (seconds, record, seen) in added.items():
        split = ", ".join(f"{stage} {s:.1f}" for stage, s in seen.items())
        recognized = "recognizing" in seen or "extracting" in seen
        print(
            f"added {lang:5} {record['status']:9} {seconds:7.1f} s   ratio {seconds / wall:.3f}"
            f"   recognized again: {'yes' if recognized else 'no'}   stages (s): {split}"
        )


if __name__ == "__main__":
    main()
