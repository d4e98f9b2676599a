"""Writes the Grafana dashboard (mediatrans.json) from the panel table below.

    .venv/bin/python cluster/grafana/build_dashboard.py          # rewrite mediatrans.json
    .venv/bin/python cluster/grafana/build_dashboard.py --check  # exit 1 when the file is stale

Every query names metrics Ray exports: ours (``ray_mediatrans_*``, core/metrics/families.py) and
Serve's built-in ones (``ray_serve_*``). tests/integration/test_metrics_http.py scrapes a running
app and checks that each name exists.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

OUT = Path(__file__).with_name("mediatrans.json")
RATE = "[$__rate_interval]"


def quantile(q: float, by: str, bucket: str, window: str) -> str:
    """``histogram_quantile`` of ``bucket`` over ``window``, kept apart by the ``by`` labels."""
    labels = ", ".join(["le", *filter(None, (x.strip() for x in by.split(",")))])
    return f"histogram_quantile({q}, sum by ({labels}) (rate({bucket}{window})))"


# (row, title, unit, [(legend, PromQL)])
PANELS: list[tuple[str, str, str, list[tuple[str, str]]]] = [
    ("Traffic", "Requests/s by endpoint group", "reqps", [
        ("{{group}}", f"sum by (group) (rate(ray_mediatrans_http_requests_total{RATE}))"),
    ]),
    ("Traffic", "Errors/s by contract code", "reqps", [
        ("{{status}} {{code}}", f'sum by (status, code) (rate(ray_mediatrans_http_requests_total{{status=~"4..|5.."}}{RATE}))'),
    ]),
    ("Traffic", "Ingress latency p50 / p99 (s)", "s", [
        ("p50 {{group}}", quantile(0.5, "group", "ray_mediatrans_http_request_seconds_bucket", RATE)),
        ("p99 {{group}}", quantile(0.99, "group", "ray_mediatrans_http_request_seconds_bucket", RATE)),
    ]),
    ("Traffic", "Serve proxy latency p99 (ms) and requests/s", "ms", [
        ("p99 {{application}}", quantile(0.99, "application", "ray_serve_http_request_latency_ms_bucket", RATE)),
        ("req/s {{application}}", f"sum by (application) (rate(ray_serve_num_http_requests_total{RATE}))"),
    ]),
    ("Serve", "Healthy replicas by deployment", "short", [
        ("{{deployment}}", "sum by (deployment) (ray_serve_deployment_replica_healthy)"),
    ]),
    ("Serve", "Autoscaling target replicas", "short", [
        ("{{deployment}}", "max by (deployment) (ray_serve_autoscaling_target_replicas)"),
    ]),
    ("Serve", "Queued requests at handles / ongoing at replicas", "short", [
        ("queued {{deployment}}", "sum by (deployment) (ray_serve_deployment_queued_queries)"),
        ("ongoing {{deployment}}", "sum by (deployment) (ray_serve_replica_processing_queries)"),
    ]),
    ("Serve", "Replica processing latency p95 (ms)", "ms", [
        ("{{deployment}}", quantile(0.95, "deployment", "ray_serve_deployment_processing_latency_ms_bucket", RATE)),
    ]),
    ("Tasks", "Job queue: waiting, in flight", "short", [
        ("waiting", "max(ray_mediatrans_queue_depth)"),
        ("in flight", "max(ray_mediatrans_queue_in_flight)"),
    ]),
    ("Tasks", "Oldest waiting job (s)", "s", [
        ("age", "max(ray_mediatrans_queue_oldest_age_seconds)"),
    ]),
    ("Tasks", "Unfinished tasks by state", "short", [
        ("{{state}}", "max by (state) (ray_mediatrans_tasks)"),
    ]),
    ("Tasks", "Tasks submitted / finished per minute", "short", [
        ("submitted {{kind}}", f"sum by (kind) (rate(ray_mediatrans_tasks_submitted_total{RATE})) * 60"),
        ("{{state}} {{kind}}", f"sum by (kind, state) (rate(ray_mediatrans_tasks_finished_total{RATE})) * 60"),
    ]),
    ("Tasks", "Video stage duration p50 / p95 (s)", "s", [
        ("p50 {{stage}}", quantile(0.5, "stage", "ray_mediatrans_video_stage_seconds_bucket", "[30m]")),
        ("p95 {{stage}}", quantile(0.95, "stage", "ray_mediatrans_video_stage_seconds_bucket", "[30m]")),
    ]),
    ("Engines", "Engine latency p95 by engine (s)", "s", [
        ("{{capability}} {{engine}}", quantile(0.95, "capability, engine", "ray_mediatrans_engine_latency_seconds_bucket", RATE)),
    ]),
    ("Engines", "Engine fallbacks/s by engine, pair and reason", "reqps", [
        ("{{engine}} {{pair}} {{reason}}", f"sum by (engine, pair, reason) (rate(ray_mediatrans_engine_fallbacks_total{RATE}))"),
    ]),
    ("Engines", "Grammar check latency p95 by language (s)", "s", [
        ("{{language}}", quantile(0.95, "language", "ray_mediatrans_grammar_check_seconds_bucket", RATE)),
    ]),
    ("LLM server (CPU profile)", "Tokens/s: prompt read, prompt reused from cache, generated", "short", [
        ("{{kind}}", f"sum by (kind) (rate(ray_mediatrans_llm_tokens_total{RATE}))"),
    ]),
    ("LLM server (CPU profile)", "Completion latency p50 / p99 (s)", "s", [
        ("p50", quantile(0.5, "", "ray_mediatrans_llm_request_seconds_bucket", RATE)),
        ("p99", quantile(0.99, "", "ray_mediatrans_llm_request_seconds_bucket", RATE)),
    ]),
    ("LLM server (CPU profile)", "Completions/s by finish reason", "reqps", [
        ("{{finish}}", f"sum by (finish) (rate(ray_mediatrans_llm_requests_total{RATE}))"),
    ]),
    ("LLM server (CPU profile)", "Busy slots, waiting requests, decode busy fraction", "short", [
        ("busy slots", "sum(ray_mediatrans_llm_slots_busy)"),
        ("waiting", "sum(ray_mediatrans_llm_waiting)"),
        ("busy fraction", f"sum(rate(ray_mediatrans_llm_busy_seconds_total{RATE}))"),
    ]),
    ("Delivery", "Webhook deliveries by outcome (per minute)", "short", [
        ("{{outcome}}", f"sum by (outcome) (rate(ray_mediatrans_webhook_deliveries_total{RATE})) * 60"),
    ]),
    ("Delivery", "Webhook delivery lag p95 (s)", "s", [
        ("p95", quantile(0.95, "", "ray_mediatrans_webhook_delivery_lag_seconds_bucket", RATE)),
    ]),
    ("Delivery", "Voice trainings by outcome (per hour)", "short", [
        ("{{outcome}}", "sum by (outcome) (increase(ray_mediatrans_voice_trainings_total[1h]))"),
    ]),
    ("Accounts", "Top 10 accounts by requests/s", "reqps", [
        ("{{account}}", f"topk(10, sum by (account) (rate(ray_mediatrans_account_requests_total{RATE})))"),
    ]),
    ("Accounts", "Quota charged in the last hour (top 10)", "short", [
        ("{{account}} {{metric}}", "topk(10, sum by (account, metric) (increase(ray_mediatrans_quota_charged_total[1h])))"),
    ]),
    ("Accounts", "Quota refusals/s by metric", "reqps", [
        ("{{metric}}", f"sum by (metric) (rate(ray_mediatrans_quota_refused_total{RATE}))"),
    ]),
]  # fmt: skip


def dashboard() -> dict:
    panels: list[dict] = []
    row_y = 0
    rows: dict[str, list] = {}
    for row, title, unit, targets in PANELS:
        rows.setdefault(row, []).append((title, unit, targets))
    next_id = 1
    for row, items in rows.items():
        panels.append({"type": "row", "title": row, "id": next_id, "collapsed": False,
                       "gridPos": {"h": 1, "w": 24, "x": 0, "y": row_y}})  # fmt: skip
        next_id += 1
        row_y += 1
        for index, (title, unit, targets) in enumerate(items):
            panels.append({
                "type": "timeseries",
                "id": next_id,
                "title": title,
                "datasource": {"type": "prometheus", "uid": "${datasource}"},
                "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
                "gridPos": {"h": 8, "w": 12, "x": 12 * (index % 2), "y": row_y + 8 * (index // 2)},
                "targets": [
                    {"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend}
                    for i, (legend, expr) in enumerate(targets)
                ],
            })  # fmt: skip
            next_id += 1
        row_y += 8 * ((len(items) + 1) // 2)
    return {
        "title": "Media translation service",
        "uid": "mediatrans",
        "schemaVersion": 39,
        "version": 1,
        "refresh": "10s",
        "time": {"from": "now-1h", "to": "now"},
        "tags": ["mediatrans", "ray-serve"],
        "templating": {"list": [{"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus"}]},
        "panels": panels,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 when mediatrans.json differs from the table")
    text = json.dumps(dashboard(), indent=2) + "\n"
    if parser.parse_args().check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is stale; run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
