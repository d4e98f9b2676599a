"""Benchmark: a >= 5-minute real-speech video to SRT through the service vs bare faster-whisper.

Builds (once, cached in var/bench/) an H.264/AAC MP4 whose audio is the real
speech recordings shipped by Debian's codec2-examples, concatenated and looped
past ``--minutes``. Then, in one run:

1. bare: ``WhisperModel.transcribe`` of the same audio with the same model
   (models/whisper-base, int8, 2 threads, beam 5, VAD) consumed sequentially;
2. ours: Redis + Ray + the Serve app with configs/local.yaml's engines, one
   ``POST /v1/video/translate`` (en → es, srt), polled to completion;
3. bare again (the machine is shared: the median of the two bare runs is used).

Prints the job's wall time / video duration, the bare time / duration, and
the ratio job / bare.

    .venv/bin/python loadtests/bench_video.py --minutes 5.5
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.bench_api import make_token  # noqa: E402
from loadtests.local_profile import mediatrans_args, run_llm_app, start_ray  # noqa: E402
from tests.support.services import free_port, redis_server, wait_http_ok  # noqa: E402

SPEECH_DIR = Path("/usr/share/codec2/raw")
CLIPS = (
    "ve9qrp.raw",
    "hts.raw",
    "vk5qi.raw",
    "ve9qrp_10s.raw",
    "hts1.raw",
    "hts2.raw",
    "kristoff.raw",
    "g3plx.raw",
    "mmt1.raw",
    "big_dog.raw",
    "cross.raw",
)


def build_video(minutes: float, crf: int | None = None) -> Path:
    """The speech video of ``minutes`` (cached); ``crf`` encodes the picture smaller (x264's default is 23), so an
    hour of video stays under the 500 MB upload limit."""
    out = ROOT / "var" / "bench" / (f"speech_{minutes:g}min.mp4" if crf is None else f"speech_{minutes:g}min_crf{crf}.mp4")
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        joined = Path(tmp) / "speech.raw"
        joined.write_bytes(
            b"".join((SPEECH_DIR / clip).read_bytes() + b"\0" * 8000 for clip in CLIPS)
        )  # 0.5 s pause between clips
        seconds = minutes * 60
        cmd = [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-stream_loop",
            "-1",
            "-f",
            "s16le",
            "-ar",
            "8000",
            "-ac",
            "1",
            "-i",
            str(joined),
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=640x360:rate=25",
            "-t",
            f"{seconds}",
            "-map",
            "1:v",
            "-map",
            "0:a",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            *(["-crf", str(crf)] if crf is not None else []),
            "-c:a",
            "aac",
            "-ar",
            "16000",
            "-shortest",
            str(out),
        ]
        subprocess.run(cmd, check=True)
    return out


def bare_whisper(video: Path) -> float:
    code = f"""
import time
from faster_whisper import WhisperModel, decode_audio
audio = decode_audio({str(video)!r})
model = WhisperModel({str(ROOT / "models" / "whisper-base")!r}, device='cpu', compute_type='int8',
                     cpu_threads=2, local_files_only=True)
start = time.perf_counter()
segments, info = model.transcribe(audio, beam_size=5, vad_filter=True)
words = sum(len(s.text.split()) for s in segments)
print(time.perf_counter() - start, words)
"""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    print(f"  bare faster-whisper: {float(out[0]):.1f} s, {out[1]} words")
    return float(out[0])


def service_job(
    video: Path,
    jobs: dict[str, dict[str, str]],
    chunk_s: float | None = None,
    on_done: Callable[[str, dict, httpx.Client], None] | None = None,
) -> dict[str, tuple[float, dict, dict[str, float]]]:
    """One job per entry (label → extra form fields), in order, on one service.

    ``chunk_s`` overrides the profile's ASR chunk length (``asr.target_chunk_s``; the maximum is 1.2 ×).
    ``on_done(label, task, client)`` runs after each job, while its outputs can still be downloaded.
    A job's ``video`` entry, if any, names the file it uploads instead of ``video``.

    Returns per label (wall time, final task, seconds per stage as seen by polling every 0.25 s).
    """
    import ray
    from ray import serve

    from serve_app.app import build_app

    port = free_port()
    local = {"args": mediatrans_args(port)}
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as redis:
        redis_url = redis.url
        start_ray()
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        asr = dict(local["args"]["asr"])
        if chunk_s is not None:
            asr.update(target_chunk_s=chunk_s, max_chunk_s=chunk_s * 1.2)
        args = {
            **local["args"],
            "asr": asr,
            "redis_url": redis_url,
            "public_base_url": base,
            "worker": {**local["args"].get("worker", {}), "work_dir": f"{tmp}/work"},
            "storage": {"root_dir": f"{tmp}/files"},
        }
        run_llm_app()
        serve.run(build_app(args), name="mediatrans", route_prefix="/")
        wait_http_ok(f"{base}/readyz", 600)
        token = make_token(redis_url)
        headers = {"Authorization": f"Bearer {token}"}
        results: dict[str, tuple[float, dict, dict[str, float]]] = {}
        with httpx.Client(base_url=base, timeout=120, headers=headers) as client:  # on_done calls with the same token
            for label, job in jobs.items():
                fields = {k: v for k, v in job.items() if k != "video"}
                upload = Path(job.get("video", video))
                started = time.perf_counter()
                with upload.open("rb") as fh:
                    response = client.post(
                        "/v1/video/translate",
                        headers=headers,
                        data={"target_lang": "es", "source_lang": "en", **fields},
                        files={"file": (upload.name, fh, "video/mp4")},
                    )
                response.raise_for_status()
                task_id = response.json()["task_id"]
                stages: dict[str, float] = {}
                last = started
                while True:
                    task = client.get(f"/v1/video/task/{task_id}", headers=headers).json()
                    now = time.perf_counter()
                    stage = task.get("stage") or task["status"]
                    stages[stage] = stages.get(stage, 0.0) + now - last
                    last = now
                    if task["status"] in ("completed", "failed"):
                        break
                    time.sleep(0.25)
                results[label] = (time.perf_counter() - started, task, stages)
                if on_done is not None:
                    on_done(label, task, client)
                if task["status"] == "completed" and "subtitle_url" in task["result"]:
                    srt = client.get(task["result"]["subtitle_url"]).text
                    print(f"  {label}: first cues:\n" + "\n".join(srt.splitlines()[:12]))
        serve.shutdown()
        ray.shutdown()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=5.5)
    parser.add_argument("--engines", default="standard,professional", help="video `engine` values, one job each")
    parser.add_argument(
        "--presets", default="standard", help="subtitle_preset values, one job each per engine (legacy,standard: their cost)"
    )
    parser.add_argument(
        "--chunk-s", type=float, default=None, help="ASR chunk length (default: the profile's); short chunks overlap stages"
    )
    args = parser.parse_args()
    video = build_video(args.minutes)
    duration = args.minutes * 60
    print(f"video: {video} ({duration:.0f} s of real speech, looped codec2-examples recordings)")
    bare = [bare_whisper(video)]
    jobs = service_job(
        video,
        {
            f"{engine}/{preset}": {"engine": engine, "subtitle_preset": preset}
            for engine in args.engines.split(",")
            for preset in args.presets.split(",")
        },
        args.chunk_s,
    )
    for engine, (job_s, task, _stages) in jobs.items():
        assert task["status"] == "completed", task
        chars = task["result"]["char_count"]
        print(f"  service job engine={engine} (upload → SRT, en → es): {job_s:.1f} s, {chars} translated characters")
    bare.append(bare_whisper(video))
    bare_s = statistics.median(bare)
    print(f"\nvideo duration           {duration:8.1f} s")
    for engine, (job_s, _, stages) in jobs.items():
        print(f"job wall time, {engine:12} {job_s:8.1f} s   = {job_s / duration:.3f} x video duration")
        print("    by stage (polled): " + ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in stages.items()))
    print(f"bare faster-whisper      {bare_s:8.1f} s   = {bare_s / duration:.3f} x video duration")
    for engine, (job_s, _, _) in jobs.items():
        print(f"ratio job / bare, {engine:12} {job_s / bare_s:6.2f}")


if __name__ == "__main__":
    main()
