"""The load-test chart: four panels over one time axis, drawn from the run's CSVs only.

1. requests/s and failures/s (from locust's cumulative counts, 5 s moving mean), users on the right axis,
   the busiest stretch without server errors shaded green;
2. p50, p95 and p99 latency (locust's percentiles over its last ~10 s), log scale;
3. failures/s by HTTP status and contract code (5 s bins);
4. running replicas per deployment (autoscaled ones also with their target, dashed); deployments
   that never changed are listed in the panel instead of drawn.

Stages (ramp, spike, soak, ...) are shaded on every panel. Uses matplotlib's Agg canvas and no
pyplot state, so it runs headless and in tests.

    .venv/bin/python loadtests/loadtest_chart.py var/loadtest     # → var/loadtest/loadtest.png
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.loadtest_summary import (  # noqa: E402
    Failure,
    ReplicaSample,
    Second,
    peak_without_server_errors,
    read_failures,
    read_history,
    read_replicas,
    read_stages,
    request_rates,
    run_start,
)

SMOOTH_POINTS = 5
FAILURE_BIN_S = 5.0
MAX_CODES = 8
STAGE_COLORS = ("#f2f2f2", "#fde7e7", "#e8f0fb", "#f6f1e1", "#ece6f5")


def moving_mean(values: list[float], points: int) -> list[float]:
    out = []
    for i in range(len(values)):
        window = values[max(0, i - points + 1) : i + 1]
        out.append(sum(window) / len(window))
    return out


def _shade_stages(ax: Axes, stages: list[tuple[str, float, float]], origin: float, label: bool) -> None:
    for i, (name, start, end) in enumerate(stages):
        ax.axvspan(start - origin, end - origin, color=STAGE_COLORS[i % len(STAGE_COLORS)], zorder=0)
        if label:
            ax.text(
                (start + end) / 2 - origin, 1.01, name, transform=ax.get_xaxis_transform(), ha="center", va="bottom", fontsize=9
            )


def _throughput(ax: Axes, history: list[Second], failures: list[Failure], origin: float) -> None:
    rates = request_rates(history)
    if rates:
        t = [ts - origin for ts, _, _ in rates]
        ax.plot(t, moving_mean([r for _, r, _ in rates], SMOOTH_POINTS), color="tab:blue", label="requests/s")
        ax.plot(t, moving_mean([f for _, _, f in rates], SMOOTH_POINTS), color="tab:red", label="failures/s")
    peak = peak_without_server_errors(history, failures, origin=origin)
    if peak:
        start, end = peak["window_s"]
        ax.axvspan(
            start, end, color="tab:green", alpha=0.25, zorder=1, label=f"peak without 5xx: {peak['requests_per_s']:.0f} req/s"
        )
    users = ax.twinx()
    users.plot([s.timestamp - origin for s in history], [s.users for s in history], color="grey", linestyle=":", label="users")
    users.set_ylabel("users")
    users.set_ylim(bottom=0)
    ax.set_ylabel("per second")
    ax.set_ylim(bottom=0)
    lines, labels = ax.get_legend_handles_labels()
    more, more_labels = users.get_legend_handles_labels()
    ax.legend(lines + more, labels + more_labels, loc="upper left", fontsize=8)


def _latency(ax: Axes, history: list[Second], origin: float) -> None:
    for attr, label, color in (("p50_ms", "p50", "tab:green"), ("p95_ms", "p95", "tab:orange"), ("p99_ms", "p99", "tab:red")):
        points = [(s.timestamp - origin, getattr(s, attr)) for s in history if getattr(s, attr)]
        if points:
            ax.plot([t for t, _ in points], [v for _, v in points], color=color, label=label)
    ax.set_ylabel("latency (ms)")
    if any(s.p99_ms for s in history):
        ax.set_yscale("log")
        ax.legend(loc="upper left", fontsize=8)


def _failures(ax: Axes, failures: list[Failure], origin: float) -> None:
    top = [label for label, _ in Counter(f.label for f in failures).most_common(MAX_CODES)]
    bins: dict[str, Counter[int]] = defaultdict(Counter)
    for f in failures:
        bins[f.label if f.label in top else "other"][int((f.timestamp - origin) // FAILURE_BIN_S)] += 1
    last = max((max(b) for b in bins.values()), default=0)
    labels = [*top, "other"] if "other" in bins else top
    t = [i * FAILURE_BIN_S for i in range(last + 2)]  # one empty bin more, so the last one is drawn with its width
    for label in labels:
        ax.step(t, [bins[label][i] / FAILURE_BIN_S for i in range(last + 2)], where="post", label=label)
    ax.set_ylabel("failures/s by code")
    ax.set_ylim(bottom=0)
    if failures:
        ax.legend(loc="upper left", fontsize=8, ncol=2)
    else:
        ax.text(0.5, 0.5, "no failed requests", transform=ax.transAxes, ha="center", va="center", color="grey")


def _replicas(ax: Axes, samples: list[ReplicaSample], origin: float) -> None:
    by_deployment: dict[str, list[ReplicaSample]] = defaultdict(list)
    for s in samples:
        by_deployment[s.deployment].append(s)
    constant = []
    for name, rows in sorted(by_deployment.items()):
        autoscaled = rows[0].min_replicas is not None
        if not autoscaled and len({r.running for r in rows}) == 1:
            constant.append(f"{name} {rows[0].running}")
            continue
        t = [r.timestamp - origin for r in rows]
        (line,) = ax.step(t, [r.running for r in rows], where="post", label=f"{name} running")
        if autoscaled:
            ax.step(
                t,
                [r.target for r in rows],
                where="post",
                linestyle="--",
                color=line.get_color(),
                alpha=0.7,
                label=f"{name} target",
            )
    ax.set_ylabel("replicas")
    ax.set_ylim(bottom=0, top=max((s.running for s in samples), default=1) + 1)
    ax.yaxis.get_major_locator().set_params(integer=True)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", fontsize=8)
    if constant:
        ax.text(0.99, 0.04, "constant: " + ", ".join(constant), transform=ax.transAxes, ha="right", fontsize=7, color="dimgrey")
    if not samples:
        ax.text(0.5, 0.5, "no replica samples", transform=ax.transAxes, ha="center", va="center", color="grey")


def build_chart(folder: Path, out: Path | None = None, title: str = "Load test") -> Path:
    """Draw the chart of the run in ``folder``; returns the PNG's path (default ``folder/loadtest.png``)."""
    history, failures = read_history(folder), read_failures(folder)
    stages, samples = read_stages(folder), read_replicas(folder)
    origin = run_start(history, stages)
    figure = Figure(figsize=(12, 12), layout="constrained")
    axes = figure.subplots(4, 1, sharex=True)
    for i, ax in enumerate(axes):
        _shade_stages(ax, stages, origin, label=i == 0)
        ax.grid(True, alpha=0.3)
    _throughput(axes[0], history, failures, origin)
    _latency(axes[1], history, origin)
    _failures(axes[2], failures, origin)
    _replicas(axes[3], samples, origin)
    axes[-1].set_xlabel("seconds since start")
    figure.suptitle(title)
    out = out or folder / "loadtest.png"
    figure.savefig(out, dpi=100)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, nargs="?", default=ROOT / "var" / "loadtest")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    print(build_chart(args.folder, args.out))


if __name__ == "__main__":
    main()
