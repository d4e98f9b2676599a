"""``make loadtest``: a staged locust run against the running service, then its chart and summary.

Runs loadtests/locustfile.py headless in a subprocess (locust and ray.init in one process hang)
while sampling Serve's replica counts every 2 s from the Ray dashboard, then condenses the CSVs.
The service must be up (``make run``); the token comes from ``--token`` or ``$MEDIATRANS_TOKEN``.

Writes to ``var/loadtest/``:

    run_stats.csv, run_stats_history.csv, run_failures.csv, run_exceptions.csv   locust's CSVs
    report.html     locust's HTML report
    errors.csv      every failed request: time, request name, HTTP status, contract code
    stages.csv      when each stage began;  tasks.csv: each video task's outcome and duration
    replicas.csv    running/starting/target replicas per deployment every 2 s
    loadtest.png    the chart (loadtests/loadtest_chart.py)
    summary.json    what is printed at the end (loadtests/loadtest_summary.py)

    MEDIATRANS_TOKEN=mt_... .venv/bin/python loadtests/loadtest.py --shape spike --spike-s 60
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.loadtest_chart import build_chart  # noqa: E402
from loadtests.loadtest_replicas import ReplicaSampler, ray_auth_token  # noqa: E402
from loadtests.loadtest_stages import SHAPES, Settings, stages, total_seconds  # noqa: E402
from loadtests.loadtest_summary import read_stages, summarize  # noqa: E402

LOCUSTFILE = ROOT / "loadtests" / "locustfile.py"
OUTPUTS = ("run_*.csv", "errors.csv", "stages.csv", "tasks.csv", "replicas.csv", "report.html", "loadtest.png", "summary.json")
#: Flag → the variable loadtests/loadtest_stages.py reads.
STAGE_FLAGS = {
    "shape": "LOADTEST_SHAPE",
    "users": "LOADTEST_USERS",
    "spike_users": "LOADTEST_SPIKE_USERS",
    "ramp_s": "LOADTEST_RAMP_S",
    "spike_s": "LOADTEST_SPIKE_S",
    "soak_s": "LOADTEST_SOAK_S",
    "cooldown_s": "LOADTEST_COOLDOWN_S",
}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="http://127.0.0.1:8000")
    parser.add_argument("--dashboard", default="http://127.0.0.1:8265", help="Ray dashboard (Serve REST API)")
    parser.add_argument("--token", default=os.environ.get("MEDIATRANS_TOKEN", ""))
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "loadtest")
    parser.add_argument("--shape", choices=SHAPES, help="default $LOADTEST_SHAPE or all")
    parser.add_argument("--users", type=int, help="steady users (default 12)")
    parser.add_argument("--spike-users", type=int, help="users during the spike (default 60)")
    parser.add_argument("--ramp-s", type=float, help="default 90")
    parser.add_argument("--spike-s", type=float, help="default 90")
    parser.add_argument("--soak-s", type=float, help="default 180")
    parser.add_argument("--cooldown-s", type=float, help="default 60")
    parser.add_argument("--sample-every", type=float, default=2.0, help="seconds between replica samples")
    return parser.parse_args()


def locust_env(args: argparse.Namespace) -> dict[str, str]:
    env = dict(os.environ, MEDIATRANS_TOKEN=args.token, LOADTEST_OUT=str(args.out))
    for flag, variable in STAGE_FLAGS.items():
        value = getattr(args, flag)
        if value is not None:
            env[variable] = str(value)
    return env


def check_service(host: str) -> None:
    try:
        with urllib.request.urlopen(f"{host}/readyz", timeout=10):
            return
    except OSError as exc:
        sys.exit(f"{host}/readyz does not answer ({exc}); start the service with `make run`")


def clear_outputs(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for pattern in OUTPUTS:
        for path in folder.glob(pattern):
            path.unlink()


def run_locust(args: argparse.Namespace, env: dict[str, str], settings: Settings, sampler: ReplicaSampler) -> int:
    """Locust until its shape ends (or well past its planned length); prints stage and replica changes as they come."""
    cmd = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--host", args.host, "--headless", "--only-summary"]
    cmd += ["--csv", str(args.out / "run"), "--csv-full-history", "--html", str(args.out / "report.html")]
    users = {stage.name: stage.users for stage in stages(settings)}
    deadline = time.time() + total_seconds(settings) + 180
    process = subprocess.Popen(cmd, env=env, cwd=ROOT)
    seen, replicas = 0, dict(sampler.autoscaled)
    try:
        while process.poll() is None:
            time.sleep(1)
            marks = read_stages(args.out)
            for name, start, _ in marks[seen:]:
                print(f"[loadtest] {_clock(start)} {name}: {users.get(name, 0)} users")
            seen = len(marks)
            for name, (running, target) in sampler.autoscaled.items():
                if replicas.get(name) != (running, target):
                    print(f"[loadtest] {_clock(time.time())} {name}: {running} running, target {target}")
            replicas = dict(sampler.autoscaled)
            if time.time() > deadline:
                print("[loadtest] locust ran past its plan; stopping it")
                process.terminate()
                process.wait(60)
    except KeyboardInterrupt:
        process.terminate()
        process.wait(60)
    return process.returncode


def describe(summary: dict[str, Any], host: str) -> str:
    lines = [
        f"Load test {summary['shape']!r} against {host}: {summary['requests']} requests, {summary['failed_requests']} failed."
    ]
    peak = summary["peak_without_server_errors"]
    if peak:
        start, end = peak["window_s"]
        lines.append(
            f"Peak held without 5xx: {peak['requests_per_s']:.1f} req/s over {start:.0f}-{end:.0f} s ({peak['users']} users); "
            f"p50 {_ms(peak['p50_ms'])}, p95 {_ms(peak['p95_ms'])}, p99 {_ms(peak['p99_ms'])}."
        )
    else:
        lines.append("No 10 s stretch without server errors (5xx or no response).")
    lines.append("Failures by status and code:" if summary["failures_by_code"] else "No failures.")
    lines += [f"    {label:40} {count:7d}" for label, count in summary["failures_by_code"].items()]
    for name, entry in summary["autoscaling"].items():
        low = entry["min_replicas"]
        lines.append(f"Autoscaling of {name} (min {low}, max {entry['max_replicas']}, peak {entry['peak_running']} running):")
        if "scale_up" in entry:
            up, down = entry["scale_up"], entry["scale_down"]
            lines.append(
                f"    after the spike began: target raised {_s(up['decided_s'])}, new replica running {_s(up['ready_s'])}"
            )
            lines.append(
                f"    after the spike ended: target back to {low} {_s(down['decided_s'])}, replicas {_s(down['done_s'])}"
            )
    tasks = summary["video_tasks"]
    text = f"Video tasks: {tasks['submitted_and_ended']} ended, {tasks['completed']} completed"
    if tasks["median_seconds_to_complete"] is not None:
        text += f", median {tasks['median_seconds_to_complete']:.1f} s from upload to completion"
    lines.append(text + ".")
    return "\n".join(lines)


def _clock(timestamp: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(timestamp))


def _s(value: float | None) -> str:
    return "never" if value is None else f"after {value:.1f} s"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f} ms"


def main() -> int:
    args = parse_args()
    args.out = args.out.resolve()
    if not args.token:
        sys.exit("no token: pass --token or set MEDIATRANS_TOKEN (make loadtest creates one)")
    env = locust_env(args)
    settings = Settings.from_env(env)
    check_service(args.host)
    clear_outputs(args.out)
    print(f"[loadtest] shape {settings.shape}: {', '.join(f'{s.name} {s.duration_s:.0f} s' for s in stages(settings))}")
    sampler = ReplicaSampler(args.dashboard, args.out / "replicas.csv", ray_auth_token(ROOT), args.sample_every)
    sampler.start()
    try:
        code = run_locust(args, env, settings, sampler)
    finally:
        sampler.stop()
    if sampler.samples == 0:
        print(f"[loadtest] no replica samples from {args.dashboard}: {sampler.last_error}")
    summary = {"shape": settings.shape, "settings": dataclasses.asdict(settings), "locust_exit_code": code}
    summary |= summarize(args.out)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    chart = build_chart(args.out, title=f"make loadtest: {settings.shape} against {args.host}")
    print()
    print(describe(summary, args.host))
    shown = chart.relative_to(ROOT) if chart.is_relative_to(ROOT) else chart
    print(f"\nChart: {shown}; summary.json, report.html and the CSVs beside it.")
    return 0 if summary["requests"] else 1


if __name__ == "__main__":
    sys.exit(main())
