"""The shipped Prometheus scrape configs and Grafana dashboard are valid and name our metrics right
(that Serve's and ours are really exported: tests/integration/test_metrics_http.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from core.metrics import FAMILIES, LLM_FAMILIES, exported_names
from tests.support import dashboard

ROOT = Path(__file__).resolve().parents[2]


def test_dashboard_is_built_from_its_table() -> None:
    check = subprocess.run([sys.executable, str(ROOT / "cluster/grafana/build_dashboard.py"), "--check"], capture_output=True)
    assert check.returncode == 0, check.stderr.decode()


def test_dashboard_shows_every_family_and_only_known_ones() -> None:
    named = dashboard.metric_names("ray_mediatrans_")
    known = exported_names((*FAMILIES, *LLM_FAMILIES))
    assert named <= known, named - known
    for family in (*FAMILIES, *LLM_FAMILIES):
        assert any(name in named for name in family.exported()), f"{family.name} is on no panel"


def test_dashboard_queries_are_balanced() -> None:
    for expr in dashboard.expressions():
        assert expr.count("(") == expr.count(")") and expr.count("{") == expr.count("}"), expr


@pytest.mark.skipif(shutil.which("promtool") is None, reason="Debian's prometheus package is installed by make setup")
def test_promtool_accepts_the_local_scrape_config() -> None:
    check = subprocess.run(["promtool", "check", "config", str(ROOT / "cluster/prometheus/prometheus.yml")], capture_output=True)
    assert check.returncode == 0, check.stdout.decode() + check.stderr.decode()


def test_kuberay_scrape_job_targets_the_ray_pods_metrics_port() -> None:
    # Debian's promtool is built without Kubernetes discovery, so this one is checked by structure.
    job = yaml.safe_load((ROOT / "cluster/prometheus/kuberay-scrape.yml").read_text())["scrape_configs"][0]
    assert job["kubernetes_sd_configs"] == [{"role": "pod"}]
    address = next(r for r in job["relabel_configs"] if r.get("target_label") == "__address__")
    assert address["replacement"].endswith(":8080")
    kuberay = (ROOT / "cluster/kuberay/rayservice.yaml").read_text()
    assert "metrics-export-port" in kuberay and "8080" in kuberay
