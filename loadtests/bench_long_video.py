"""Benchmark: does the cost of a video grow linearly with its length? Time per minute and peak memory.

Builds (once, cached in var/bench/) real-speech videos of each ``--minutes`` length from the recordings Debian's
codec2-examples ships (several speakers, looped; as loadtests/bench_video.py), then runs each through one service
(Redis + Ray + configs/local.yaml's engines) as the ``--jobs`` ask:

* ``diarized``: subtitles (en → es, srt) with speaker diarization;
* ``dubbed``: the same with AI dubbing.

While a job runs, a sampler reads the resident memory of every Serve replica process every 0.5 s (the sum of a
deployment's replicas), and the task is polled every second for its progress and ``estimated_seconds``.

Prints per job and length: wall time, seconds per minute of video, its ratio to the shortest length's
(goal: ≤ 1.2 at 60 minutes against 5), the peak RSS per deployment (goal: flat in length, none above 3 GB),
whether progress only rose, and the first estimate against the real time (goal: within ±30 %).

    .venv/bin/python loadtests/bench_long_video.py --minutes 5,20,60 --jobs diarized,dubbed
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.bench_api import make_token  # noqa: E402
from loadtests.bench_video import build_video  # noqa: E402
from loadtests.local_profile import mediatrans_args, run_llm_app, start_ray  # noqa: E402
from tests.support.services import free_port, redis_server, wait_http_ok  # noqa: E402

#: Every length is encoded alike, small enough that 60 minutes fit the 500 MB upload limit (about 3 MB a minute).
LONG_CRF = 40

JOBS: dict[str, dict[str, str]] = {
    "diarized": {"enable_diarization": "true"},
    "dubbed": {"enable_diarization": "true", "enable_dubbing": "true"},
}


class ReplicaMemory(threading.Thread):
    """Peak resident memory (MB) per Serve deployment, summed over its replicas, while it runs."""

    def __init__(self, period_s: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.period_s = period_s
        self.peaks: dict[str, float] = {}
        self._done = threading.Event()

    def run(self) -> None:
        import psutil

        while not self._done.is_set():
            now: dict[str, float] = {}
            for process in psutil.process_iter(["cmdline", "memory_info"]):
                title = " ".join(process.info["cmdline"] or [])
                if title.startswith("ray::ServeReplica:") and process.info["memory_info"]:
                    # ray::ServeReplica:<app>:<deployment>, with ".<method>" while the replica runs a call
                    deployment = title.split()[0].rsplit(":", 1)[-1].split(".")[0]
                    now[deployment] = now.get(deployment, 0.0) + process.info["memory_info"].rss / 1e6
            for deployment, mb in now.items():
                self.peaks[deployment] = max(self.peaks.get(deployment, 0.0), mb)
            self._done.wait(self.period_s)

    def stop(self) -> dict[str, float]:
        self._done.set()
        self.join(5)
        return self.peaks


def run_job(client: httpx.Client, video: Path, fields: dict[str, str]) -> dict[str, Any]:
    """One submission polled to the end: wall time, the task, progress history, first estimate, peak memory."""
    memory = ReplicaMemory()
    memory.start()
    started = time.perf_counter()
    with video.open("rb") as fh:
        response = client.post(
            "/v1/video/translate",
            data={"target_lang": "es", "source_lang": "en", **fields},
            files={"file": (video.name, fh, "video/mp4")},
        )
    response.raise_for_status()
    submitted = response.json()
    progress: list[int] = []
    while True:
        task = client.get(f"/v1/video/task/{submitted['task_id']}").json()
        progress.append(int(task.get("progress", 0)))
        if task["status"] in ("completed", "failed", "expired"):
            break
        time.sleep(1.0)
    wall = time.perf_counter() - started
    return {
        "wall_s": wall,
        "task": task,
        "monotonic": all(b >= a for a, b in itertools.pairwise(progress)),
        "estimate_s": submitted.get("estimated_seconds"),
        "peaks_mb": memory.stop(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", default="5,20,60", help="video lengths, comma-separated")
    parser.add_argument("--jobs", default="diarized,dubbed", help=f"of {', '.join(JOBS)}")
    options = parser.parse_args()
    lengths = [float(m) for m in options.minutes.split(",")]
    jobs = options.jobs.split(",")
    videos = {minutes: build_video(minutes, crf=LONG_CRF) for minutes in lengths}
    import ray
    from ray import serve

    from serve_app.app import build_app

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    results: dict[tuple[str, float], dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as redis:
        start_ray()
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        local = mediatrans_args(port)
        args = {
            **local,
            "redis_url": redis.url,
            "public_base_url": base,
            "worker": {**local.get("worker", {}), "work_dir": f"{tmp}/work"},
            "storage": {"root_dir": f"{tmp}/files"},
        }
        run_llm_app()
        serve.run(build_app(args), name="mediatrans", route_prefix="/")
        wait_http_ok(f"{base}/readyz", 600)
        headers = {"Authorization": f"Bearer {make_token(redis.url)}"}
        with httpx.Client(base_url=base, timeout=600, headers=headers) as client:
            for job in jobs:
                for minutes in lengths:
                    result = run_job(client, videos[minutes], JOBS[job])
                    results[job, minutes] = result
                    status = result["task"]["status"]
                    print(f"{job} {minutes:g} min: {status} in {result['wall_s']:.0f} s", flush=True)
        serve.shutdown()
        ray.shutdown()
    print("\njob       min   wall s   s/min  ratio  progress  estimate  peak RSS MB by deployment")
    for job in jobs:
        first = results[job, lengths[0]]["wall_s"] / lengths[0]
        for minutes in lengths:
            r = results[job, minutes]
            per_min = r["wall_s"] / minutes
            estimate = f"{(r['estimate_s'] or 0) / r['wall_s'] - 1:+.0%}" if r["estimate_s"] else "none"
            peaks = ", ".join(f"{name} {mb:.0f}" for name, mb in sorted(r["peaks_mb"].items(), key=lambda kv: -kv[1]))
            rising = "rising" if r["monotonic"] else "WENT BACK"
            print(
                f"{job:9} {minutes:4g} {r['wall_s']:8.0f} {per_min:7.1f} {per_min / first:6.2f}  {rising:8}  "
                f"{estimate:>8}  {peaks}"
            )


if __name__ == "__main__":
    main()
