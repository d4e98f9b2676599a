"""Samples Serve replica counts per deployment from the Ray dashboard's REST API into a CSV.

``GET /api/serve/applications/`` answers ``ServeInstanceDetails``: applications → deployments →
``replicas`` (each with a ``state``), ``target_num_replicas`` and the applied
``deployment_config`` (its ``autoscaling_config`` when the deployment autoscales). With Ray's
token authentication on (cluster/local/ray-env.sh), the token goes in ``Authorization``.

One row per deployment per sample:
``timestamp,application,deployment,running,starting,target,min_replicas,max_replicas``
(the last two empty for a deployment with a fixed replica count).
"""

from __future__ import annotations

import csv
import json
import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

COLUMNS = ["timestamp", "application", "deployment", "running", "starting", "target", "min_replicas", "max_replicas"]
STARTING_STATES = {"STARTING", "UPDATING", "RECOVERING", "PENDING_MIGRATION"}


def ray_auth_token(root: Path) -> str | None:
    """The cluster's token (``$RAY_AUTH_TOKEN_PATH``, else the project's ``var/ray/auth_token``), if any."""
    path = Path(os.environ.get("RAY_AUTH_TOKEN_PATH") or root / "var" / "ray" / "auth_token")
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def replica_rows(details: dict[str, Any], timestamp: float) -> list[list[Any]]:
    """CSV rows of one ``ServeInstanceDetails`` answer."""
    rows = []
    for app_name, app in sorted((details.get("applications") or {}).items()):
        for name, deployment in sorted((app.get("deployments") or {}).items()):
            states = [replica.get("state") for replica in deployment.get("replicas") or []]
            scaling = (deployment.get("deployment_config") or {}).get("autoscaling_config") or {}
            running = states.count("RUNNING")
            starting = sum(state in STARTING_STATES for state in states)
            target = deployment.get("target_num_replicas", "")
            rows.append(
                [
                    f"{timestamp:.3f}",
                    app_name,
                    name,
                    running,
                    starting,
                    target,
                    scaling.get("min_replicas", ""),
                    scaling.get("max_replicas", ""),
                ]
            )
    return rows


class ReplicaSampler(threading.Thread):
    """Polls the dashboard every ``every_s`` seconds until stopped; appends rows to ``path``."""

    def __init__(self, dashboard_url: str, path: Path, token: str | None, every_s: float = 2.0) -> None:
        super().__init__(name="replica-sampler", daemon=True)
        self.url = dashboard_url.rstrip("/") + "/api/serve/applications/"
        self.path = path
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.every_s = every_s
        self.stopped = threading.Event()
        self.samples = 0
        self.failures = 0
        self.last_error = ""
        #: Latest (running, target) of each autoscaled deployment, for progress lines.
        self.autoscaled: dict[str, tuple[int, int]] = {}

    def fetch(self) -> dict[str, Any]:
        request = urllib.request.Request(self.url, headers=self.headers)
        with urllib.request.urlopen(request, timeout=self.every_s * 2) as response:
            details: dict[str, Any] = json.loads(response.read())
            return details

    def run(self) -> None:
        with self.path.open("w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow(COLUMNS)
            while not self.stopped.is_set():
                started = time.time()
                try:
                    rows = replica_rows(self.fetch(), started)
                    writer.writerows(rows)
                    file.flush()
                    self.autoscaled = {row[2]: (row[3], row[5]) for row in rows if row[6] != ""}
                    self.samples += 1
                except (OSError, ValueError, urllib.error.URLError) as exc:
                    self.failures += 1
                    self.last_error = f"{type(exc).__name__}: {exc}"
                self.stopped.wait(max(0.0, self.every_s - (time.time() - started)))

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=self.every_s * 3)
