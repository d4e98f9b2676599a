"""The shipped Grafana dashboard's queries (cluster/grafana/mediatrans.json)."""

from __future__ import annotations

import json
import re
from pathlib import Path

DASHBOARD = Path(__file__).resolve().parents[2] / "cluster" / "grafana" / "mediatrans.json"


def expressions() -> list[str]:
    return [t["expr"] for panel in json.loads(DASHBOARD.read_text())["panels"] for t in panel.get("targets", [])]


def metric_names(prefix: str = "ray_") -> set[str]:
    """Every metric name the queries use that starts with ``prefix``."""
    return {name for expr in expressions() for name in re.findall(rf"\b{prefix}[a-z_]+", expr)}
