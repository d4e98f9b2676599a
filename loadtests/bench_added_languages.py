"""Benchmark: one recognition, many outputs (docs/video-languages.md, docs/subtitle-translation.md).

On the 5.5-minute real-speech video of ``loadtests/bench_video.py``, in one service run:

1. an SRT task (en → es): the original task;
2. each of ``--languages`` added to it, one after another (``POST …/translations``); goal: each ≤ 0.3 × the original;
3. the English subtitles of that video (the original's recognized segments, on their times) sent to
   ``POST /v1/subtitles/translate`` (→ es); goal: ≤ 0.3 × the original;
4. with ``--multi``: one submission with es and ``additional_target_langs`` = the languages, waited for until every
   task is done, against four separate submissions (the original and one per language, measured here); goal: ≤ 0.6.

Prints each wall time (submit to completed, polled every 0.25 s), its ratio and the stages each was seen in.

    PYTHONPATH=. .venv/bin/python loadtests/bench_added_languages.py --minutes 5.5 --languages de,fr,it --multi
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.bench_video import build_video, service_job  # noqa: E402


def follow(client: httpx.Client, response: httpx.Response, started: float) -> tuple[float, dict, dict[str, float]]:
    """A submitted task polled to the end: wall time since ``started``, final record, seconds per stage seen."""
    if response.status_code != 200:
        raise SystemExit(f"refused: {response.status_code} {response.text}")
    task_id = response.json()["task_id"]
    stages: dict[str, float] = {}
    last = started
    while True:
        record = client.get(f"/v1/video/task/{task_id}").json()
        now = time.perf_counter()
        stage = record.get("stage") or record["status"]
        stages[stage] = stages.get(stage, 0.0) + now - last
        last = now
        if record["status"] in ("completed", "failed", "expired"):
            return now - started, record, stages
        time.sleep(0.25)


def srt_of(segments: list[dict[str, Any]]) -> str:
    """The recognized segments as an English SubRip file, on their own times."""

    def stamp(t: float) -> str:
        ms = round(t * 1000)
        return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"

    blocks = [f"{n}\n{stamp(s['start'])} --> {stamp(s['end'])}\n{s['source']}\n" for n, s in enumerate(segments, 1)]
    return "\n".join(blocks)


def line(label: str, result: tuple[float, dict, dict[str, float]], base: float) -> str:
    seconds, record, seen = result
    split = ", ".join(f"{stage} {s:.1f}" for stage, s in seen.items())
    recognized = "yes" if {"recognizing", "extracting"} & set(seen) else "no"
    return f"{label:22} {record['status']:9} {seconds:7.1f} s   ratio {seconds / base:.3f}   recognized: {recognized}   ({split})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.5)
    parser.add_argument("--languages", default="de,fr,it", help="languages to add, comma-separated")
    parser.add_argument("--multi", action="store_true", help="also time one multi-target submission against separate ones")
    args = parser.parse_args()
    languages = [code.strip() for code in args.languages.split(",") if code.strip()]
    video = build_video(args.minutes)
    runs: dict[str, tuple[float, dict, dict[str, float]]] = {}

    def on_done(_label: str, task: dict, client: httpx.Client) -> None:
        assert task["status"] == "completed", task
        for lang in languages:
            started = time.perf_counter()
            response = client.post(f"/v1/video/task/{task['task_id']}/translations", json={"target_lang": lang})
            runs[f"added {lang}"] = follow(client, response, started)
        segments = client.get(f"/v1/video/task/{task['task_id']}/transcript").json()["segments"]
        started = time.perf_counter()
        files = {"file": ("talk.srt", srt_of(segments).encode(), "application/x-subrip")}
        runs["srt file → es"] = follow(
            client, client.post("/v1/subtitles/translate", data={"target_lang": "es"}, files=files), started
        )
        if args.multi:
            runs.update(multi(client, video, languages))

    jobs = service_job(video, {"subtitles": {"output_format": "srt"}}, on_done=on_done)
    base, _task, stages = jobs["subtitles"]
    split = ", ".join(f"{stage} {seconds:.1f}" for stage, seconds in stages.items())
    print(f"\nvideo {args.minutes * 60:.0f} s; original task (en → es, srt): {base:.1f} s   stages (s): {split}")
    for label, result in runs.items():
        if not label.startswith(("separate", "multi")):
            print(line(label, result, base))
    if args.multi:
        separate = base + sum(runs[f"separate {lang}"][0] for lang in languages)
        together = runs["multi (all done)"][0]
        print(f"{len(languages) + 1} targets: one submission {together:.1f} s, separate submissions {separate:.1f} s "
              f"(es {base:.1f} + " + " + ".join(f"{lang} {runs[f'separate {lang}'][0]:.1f}" for lang in languages)
              + f"), ratio {together / separate:.3f}")  # fmt: skip


def multi(client: httpx.Client, video: Path, languages: list[str]) -> dict[str, tuple[float, dict, dict[str, float]]]:
    """One submission with every target, until all its tasks are done; then one separate submission per language."""
    out: dict[str, tuple[float, dict, dict[str, float]]] = {}
    fields = {"target_lang": "es", "source_lang": "en", "output_format": "srt", "additional_target_langs": ",".join(languages)}
    started = time.perf_counter()
    with video.open("rb") as fh:
        response = client.post("/v1/video/translate", data=fields, files={"file": (video.name, fh, "video/mp4")})
    extra = response.json().get("additional_tasks", [])
    follow(client, response, started)
    for task in extra:
        out["multi (all done)"] = follow(client, httpx.Response(200, json=task), started)
    for lang in languages:
        started = time.perf_counter()
        with video.open("rb") as fh:
            fields = {"target_lang": lang, "source_lang": "en", "output_format": "srt"}
            response = client.post("/v1/video/translate", data=fields, files={"file": (video.name, fh, "video/mp4")})
        out[f"separate {lang}"] = follow(client, response, started)
    return out


if __name__ == "__main__":
    main()
