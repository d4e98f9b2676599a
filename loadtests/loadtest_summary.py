"""Reads the CSVs of one load test and condenses them into the numbers a reader wants first.

Inputs, all in one folder: locust's ``run_stats_history.csv`` (``--csv run --csv-full-history``;
only its ``Aggregated`` rows are used), and the ``errors.csv``, ``stages.csv``, ``tasks.csv``
and ``replicas.csv`` written by loadtests/locustfile.py and loadtests/loadtest_replicas.py.
Nothing here talks to the service, so the chart and the summary can be rebuilt and tested offline.

* peak load held without server errors: the highest request rate over any ``window_s`` stretch
  (from locust's cumulative request count) with no 5xx and no unanswered request in it, with
  locust's p50/p95/p99 for that stretch;
* failures by HTTP status and contract code;
* per autoscaled deployment: seconds from the spike's start until the autoscaler raised the
  target (``decided_s``) and until the extra replica ran (``ready_s``); seconds from the spike's end
  until the target and the running count were back at ``min_replicas``.
"""

from __future__ import annotations

import bisect
import csv
import dataclasses
import itertools
import statistics
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HISTORY = "run_stats_history.csv"


@dataclasses.dataclass(frozen=True)
class Second:
    """One ``Aggregated`` row of locust's history: totals so far and percentiles of the last ~10 s."""

    timestamp: float
    users: int
    requests: int
    failures: int
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None


@dataclasses.dataclass(frozen=True)
class Failure:
    timestamp: float
    name: str
    status: str  # HTTP status; "0": no answer; "task": a video task that did not complete
    code: str

    @property
    def label(self) -> str:
        if self.status == "0":
            return f"no response ({self.code})"
        if self.status == "task":
            return f"video task {self.code}"
        return f"{self.status} {self.code}"

    @property
    def server_side(self) -> bool:
        """A 5xx, or no answer at all (refused, reset, timed out)."""
        return self.status.isdigit() and (int(self.status) >= 500 or int(self.status) == 0)


@dataclasses.dataclass(frozen=True)
class ReplicaSample:
    timestamp: float
    application: str
    deployment: str
    running: int
    target: int | None
    min_replicas: int | None
    max_replicas: int | None


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def _ms(value: str) -> float | None:
    return None if value in ("", "N/A") else float(value)


def _int(value: str) -> int | None:
    return None if value == "" else int(value)


def read_history(folder: Path) -> list[Second]:
    return [
        Second(
            timestamp=float(r["Timestamp"]),
            users=int(r["User Count"]),
            requests=int(r["Total Request Count"]),
            failures=int(r["Total Failure Count"]),
            p50_ms=_ms(r["50%"]),
            p95_ms=_ms(r["95%"]),
            p99_ms=_ms(r["99%"]),
        )
        for r in _rows(folder / HISTORY)
        if r["Name"] == "Aggregated"
    ]


def read_failures(folder: Path) -> list[Failure]:
    return [Failure(float(r["timestamp"]), r["name"], r["status"], r["code"]) for r in _rows(folder / "errors.csv")]


def read_stages(folder: Path) -> list[tuple[str, float, float]]:
    """(name, start, end) per stage, from the stage changes the shape logged (the last is "end")."""
    marks = [(r["stage"], float(r["timestamp"])) for r in _rows(folder / "stages.csv")]
    return [(name, start, end) for (name, start), (_, end) in itertools.pairwise(marks) if name != "end"]


def read_replicas(folder: Path) -> list[ReplicaSample]:
    return [
        ReplicaSample(
            timestamp=float(r["timestamp"]),
            application=r["application"],
            deployment=r["deployment"],
            running=int(r["running"]),
            target=_int(r["target"]),
            min_replicas=_int(r["min_replicas"]),
            max_replicas=_int(r["max_replicas"]),
        )
        for r in _rows(folder / "replicas.csv")
    ]


def request_rates(history: list[Second]) -> list[tuple[float, float, float]]:
    """(timestamp, requests/s, failures/s) between consecutive history rows."""
    return [
        (
            b.timestamp,
            (b.requests - a.requests) / (b.timestamp - a.timestamp),
            (b.failures - a.failures) / (b.timestamp - a.timestamp),
        )
        for a, b in itertools.pairwise(history)
        if b.timestamp > a.timestamp
    ]


def peak_without_server_errors(
    history: list[Second], failures: list[Failure], window_s: float = 10.0, origin: float = 0.0
) -> dict[str, Any] | None:
    """The busiest ``window_s`` stretch with no server-side failure; None if every stretch had one.

    ``window`` is given in seconds since ``origin`` (the run's start).
    """
    times = [s.timestamp for s in history]
    bad = sorted(f.timestamp for f in failures if f.server_side)
    best: dict[str, Any] | None = None
    for end in history:
        i = bisect.bisect_right(times, end.timestamp - window_s) - 1
        if i < 0:
            continue
        start = history[i]
        if bisect.bisect_right(bad, end.timestamp) - bisect.bisect_right(bad, start.timestamp) > 0:
            continue
        rps = (end.requests - start.requests) / (end.timestamp - start.timestamp)
        if best is None or rps > best["requests_per_s"]:
            best = {
                "requests_per_s": round(rps, 2),
                "users": end.users,
                "p50_ms": end.p50_ms,
                "p95_ms": end.p95_ms,
                "p99_ms": end.p99_ms,
                "window_s": [round(start.timestamp - origin, 1), round(end.timestamp - origin, 1)],
            }
    return best


def failures_by_code(failures: list[Failure]) -> dict[str, int]:
    return dict(Counter(f.label for f in failures).most_common())


def scaling(replicas: list[ReplicaSample], stages: list[tuple[str, float, float]], spike: str = "spike") -> dict[str, Any]:
    """Scale-up and scale-down times of each autoscaled deployment around the spike stage."""
    window = next(((start, end) for name, start, end in stages if name == spike), None)
    result: dict[str, Any] = {}
    for deployment in sorted({r.deployment for r in replicas if r.min_replicas is not None}):
        samples = sorted((r for r in replicas if r.deployment == deployment), key=lambda r: r.timestamp)
        result[deployment] = _deployment_scaling(samples, window)
    return result


def _deployment_scaling(samples: list[ReplicaSample], spike: tuple[float, float] | None) -> dict[str, Any]:
    low = samples[0].min_replicas or 0
    entry: dict[str, Any] = {
        "min_replicas": low,
        "max_replicas": samples[0].max_replicas,
        "peak_running": max(r.running for r in samples),
    }
    if spike is None:
        return entry
    start, end = spike
    raised = _first_time(samples, start, lambda r: (r.target or 0) > low)
    running = _first_time(samples, start, lambda r: r.running > low)
    lowered = _first_time(samples, raised, lambda r: (r.target or 0) <= low)
    stopped = _first_time(samples, max(running, lowered), lambda r: r.running <= low) if running and lowered else None
    entry["scale_up"] = {"decided_s": _since(raised, start), "ready_s": _since(running, start)}
    entry["scale_down"] = {"decided_s": _since(lowered, end), "done_s": _since(stopped, end)}
    return entry


def _first_time(samples: list[ReplicaSample], since: float | None, condition: Callable[[ReplicaSample], bool]) -> float | None:
    """Time of the first sample at or after ``since`` meeting ``condition``."""
    if since is None:
        return None
    return next((r.timestamp for r in samples if r.timestamp >= since and condition(r)), None)


def _since(moment: float | None, origin: float) -> float | None:
    return None if moment is None else round(moment - origin, 1)


def video_tasks(folder: Path) -> dict[str, Any]:
    rows = _rows(folder / "tasks.csv")
    done = [float(r["seconds"]) for r in rows if r["status"] == "completed"]
    return {
        "submitted_and_ended": len(rows),
        "completed": len(done),
        "by_status": dict(Counter(r["status"] for r in rows)),
        "median_seconds_to_complete": round(statistics.median(done), 1) if done else None,
    }


def run_start(history: list[Second], stages: list[tuple[str, float, float]]) -> float:
    """Time zero of the run: the first stage's start, else the first history row."""
    if stages:
        return stages[0][1]
    return history[0].timestamp if history else 0.0


def summarize(folder: Path, window_s: float = 10.0) -> dict[str, Any]:
    history = read_history(folder)
    failures = read_failures(folder)
    stages = read_stages(folder)
    origin = run_start(history, stages)
    return {
        "requests": history[-1].requests if history else 0,
        "failed_requests": history[-1].failures if history else 0,
        "stages": [
            {"stage": name, "from_s": round(start - origin, 1), "to_s": round(end - origin, 1)} for name, start, end in stages
        ],
        "peak_without_server_errors": peak_without_server_errors(history, failures, window_s, origin),
        "failures_by_code": failures_by_code(failures),
        "autoscaling": scaling(read_replicas(folder), stages),
        "video_tasks": video_tasks(folder),
    }
