"""The load-test chart and summary, from synthetic CSVs shaped like a real run's."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from PIL import Image

from loadtests.loadtest_chart import build_chart
from loadtests.loadtest_replicas import COLUMNS, replica_rows
from loadtests.loadtest_stages import SPIKE_GAME_THINK_S, Settings, stage_at, stages, total_seconds
from loadtests.loadtest_summary import summarize

# Exactly the header of locust 2.x's ``--csv-full-history`` stats history.
HISTORY_HEADER = [
    "Timestamp", "User Count", "Type", "Name", "Requests/s", "Failures/s",
    "50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%",
    "Total Request Count", "Total Failure Count", "Total Median Response Time", "Total Average Response Time",
    "Total Min Response Time", "Total Max Response Time", "Total Average Content Size",
]  # fmt: skip

T0 = 1_700_000_000  # the ramp starts; spike 60-120 s; soak 120-200 s
SPIKE, SOAK, END = T0 + 60, T0 + 120, T0 + 200


def _stage_values(t: int) -> tuple[int, int, int]:
    """(requests in the second ending at t, users, p99 ms) of the synthetic run."""
    if t <= SPIKE:
        return 10, 10, 100
    if t <= SOAK:
        return 50, 60, 900
    return 20, 20, 200


def _write(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        writer.writerows(rows)


@pytest.fixture
def run(tmp_path: Path) -> Path:
    history, total = [], 0
    for t in range(T0, END + 1):
        requests, users, p99 = _stage_values(t)
        total += requests if t > T0 else 0
        percentiles = ["N/A"] * 11 if t == T0 else [p99 // 4, 0, 0, 0, 0, p99 // 2, 0, p99, 0, 0, p99]
        # A per-endpoint row with absurd counts: only the Aggregated rows may be read.
        history.append([t, users, "GET", "/v1/languages", "1.0", "0.0", *percentiles, 10**9, 10**9, 1, 1, 1, 1, 1])
        history.append([t, users, "", "Aggregated", "1.0", "0.0", *percentiles, total, 0, 1, 1, 1, 1, 100])
    _write(tmp_path / "run_stats_history.csv", HISTORY_HEADER, history)

    # 503s every 5 s through the spike (no 10 s stretch of it is clean), one timeout, 429s in the soak (not server errors).
    errors: list[list[object]] = [[SPIKE + 0.5 + 5 * i, "/v1/game/localization", 503, "5002"] for i in range(12)]
    errors.append([SPIKE + 30.2, "/v1/game/localization", 0, "ReadTimeout"])
    errors += [[SOAK + 10 + i, "/v1/grammar", 429, "4001"] for i in range(3)]
    errors.append([SOAK + 40, "video task", "task", "INTERNAL_ERROR"])
    _write(tmp_path / "errors.csv", ["timestamp", "name", "status", "code"], errors)

    _write(tmp_path / "stages.csv", ["timestamp", "stage"], [[T0, "ramp"], [SPIKE, "spike"], [SOAK, "soak"], [END, "end"]])
    _write(
        tmp_path / "tasks.csv",
        ["timestamp", "task_id", "status", "seconds", "code"],
        [
            [T0 + 30, "t1", "completed", "12.0", ""],
            [T0 + 90, "t2", "completed", "20.0", ""],
            [SOAK + 40, "t3", "failed", "9", "x"],
        ],
    )

    replicas = []
    for t in range(T0, END + 1, 2):
        target = 2 if SPIKE + 8 <= t < SOAK + 30 else 1
        running = 2 if SPIKE + 20 <= t < SOAK + 34 else 1
        replicas.append([t, "mediatrans", "Translator", running, 0, target, 1, 2])
        replicas.append([t, "mediatrans", "Ingress", 1, 0, 1, "", ""])
    _write(tmp_path / "replicas.csv", COLUMNS, replicas)
    return tmp_path


def test_peak_without_server_errors_skips_every_stretch_with_a_5xx_or_no_answer(run: Path) -> None:
    peak = summarize(run)["peak_without_server_errors"]
    # The last 503 is at 115.5 s: the best clean 10 s is 116-126 s = four spike seconds (50) + six soak seconds (20).
    assert peak["window_s"] == [116.0, 126.0]
    assert peak["requests_per_s"] == pytest.approx(32.0)
    assert (peak["users"], peak["p99_ms"], peak["p50_ms"]) == (20, 200, 50)


def test_totals_and_failures_by_code(run: Path) -> None:
    summary = summarize(run)
    assert summary["requests"] == 60 * 10 + 60 * 50 + 80 * 20
    assert summary["failures_by_code"] == {
        "503 5002": 12,
        "429 4001": 3,
        "no response (ReadTimeout)": 1,
        "video task INTERNAL_ERROR": 1,
    }
    assert [s["stage"] for s in summary["stages"]] == ["ramp", "spike", "soak"]
    assert summary["video_tasks"]["completed"] == 2
    assert summary["video_tasks"]["median_seconds_to_complete"] == 16.0


def test_scale_up_and_down_times_around_the_spike(run: Path) -> None:
    scaling = summarize(run)["autoscaling"]
    assert set(scaling) == {"Translator"}  # Ingress has a fixed replica count
    translator = scaling["Translator"]
    assert (translator["min_replicas"], translator["max_replicas"], translator["peak_running"]) == (1, 2, 2)
    assert translator["scale_up"] == {"decided_s": 8.0, "ready_s": 20.0}
    assert translator["scale_down"] == {"decided_s": 30.0, "done_s": 34.0}


def test_chart_is_a_png_of_the_expected_size(run: Path) -> None:
    chart = build_chart(run)
    assert chart == run / "loadtest.png"
    data = chart.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000  # four drawn panels, not an empty canvas
    with Image.open(chart) as image:
        assert image.size == (1200, 1200)


def test_chart_of_a_run_without_data_still_renders(tmp_path: Path) -> None:
    chart = build_chart(tmp_path)
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_replica_rows_from_serve_instance_details() -> None:
    details = {
        "applications": {
            "mediatrans": {
                "deployments": {
                    "Translator": {
                        "target_num_replicas": 2,
                        "replicas": [{"state": "RUNNING"}, {"state": "STARTING"}],
                        "deployment_config": {"autoscaling_config": {"min_replicas": 1, "max_replicas": 2}},
                    },
                    "Ingress": {"target_num_replicas": 1, "replicas": [{"state": "RUNNING"}], "deployment_config": {}},
                }
            }
        }
    }
    rows = replica_rows(details, 12.5)
    assert rows == [
        ["12.500", "mediatrans", "Ingress", 1, 0, 1, "", ""],
        ["12.500", "mediatrans", "Translator", 1, 1, 2, 1, 2],
    ]


def test_stage_plans() -> None:
    everything = Settings.from_env({})
    plan = stages(everything)
    assert [s.name for s in plan] == ["ramp", "spike", "soak", "cooldown"]
    assert total_seconds(everything) == 420
    assert stage_at(plan, 100).game_think_s == SPIKE_GAME_THINK_S
    assert stage_at(plan, 420) is None
    spike = Settings.from_env({"LOADTEST_SHAPE": "spike", "LOADTEST_SPIKE_S": "30", "LOADTEST_SPIKE_USERS": "80"})
    assert [(s.name, s.duration_s, s.users) for s in stages(spike)][:2] == [("baseline", 30, 12), ("spike", 30, 80)]
    with pytest.raises(ValueError):
        Settings.from_env({"LOADTEST_SHAPE": "storm"})
