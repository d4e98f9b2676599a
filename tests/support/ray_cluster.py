"""A multi-node Ray cluster on one machine, started with ``ray start`` as an operator would.

Every node is a ``ray start --block`` process with its own temp dir and its own
ports, so the cluster never meets another Ray instance running on the machine.
Tear-down kills only the processes this module started (each node's process
tree), never ``ray stop``, which would stop every Ray instance of the user.
The dashboard uses Ray's token authentication (as cluster/local/ray-env.sh
sets it up) with a token of the cluster's own.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
#: Small object stores: the tests move a few MB.
OBJECT_STORE_BYTES = 256 << 20
NODE_PORT_FLAGS = (
    "--node-manager-port",
    "--object-manager-port",
    "--dashboard-agent-listen-port",
    "--dashboard-agent-grpc-port",
    "--runtime-env-agent-port",
    "--metrics-export-port",
)


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports (all held open until every one is chosen)."""
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket())
            sock.bind(("127.0.0.1", 0))
            ports.append(int(sock.getsockname()[1]))
        return ports


def _tree(pid: int) -> list[psutil.Process]:
    """The process and all its descendants (empty when it is gone)."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _kill_all(processes: list[psutil.Process], grace_s: float) -> None:
    """SIGTERM, then SIGKILL after ``grace_s``; psutil checks each one is still the process it was."""
    for proc in processes:
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _gone, alive = psutil.wait_procs(processes, timeout=grace_s)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=5)


class RayNode:
    """One ``ray start --block`` process and the Ray processes under it."""

    def __init__(self, name: str, temp_dir: Path, args: list[str], env: dict[str, str]) -> None:
        self.name = name
        self.temp_dir = temp_dir
        self.log_path = temp_dir.parent / f"{name}.log"
        self._log: IO[bytes] = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [str(BIN / "ray"), "start", "--block", "--temp-dir", str(temp_dir), *args],
            cwd=ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        #: Processes of the node left behind by a killed raylet, killed at tear-down.
        self._leftovers: list[psutil.Process] = []

    def raylet(self) -> psutil.Process | None:
        for proc in _tree(self.proc.pid)[1:]:
            with contextlib.suppress(psutil.Error):
                if proc.name() == "raylet":
                    return proc
        return None

    def node_id(self) -> str | None:
        """The node id the raylet was started with (``--node_id=<hex>`` on its command line)."""
        raylet = self.raylet()
        if raylet is None:
            return None
        with contextlib.suppress(psutil.Error):
            for arg in raylet.cmdline():
                if arg.startswith("--node_id="):
                    return arg.split("=", 1)[1]
        return None

    def exited(self) -> bool:
        return self.proc.poll() is not None

    def tail(self, chars: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")[-chars:]
        return ""

    def kill_raylet(self) -> int:
        """SIGKILL the node's raylet (the node is lost); returns its pid."""
        raylet = self.raylet()
        if raylet is None:
            raise RuntimeError(f"node {self.name} has no raylet:\n{self.tail()}")
        self._leftovers = _tree(self.proc.pid)
        raylet.kill()
        return raylet.pid

    def stop(self, grace_s: float = 15.0) -> None:
        processes = [*_tree(self.proc.pid), *self._leftovers]
        _kill_all(processes, grace_s)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        self._log.close()


class RayCluster:
    """A head node and worker nodes on this machine, each with the temp dir ``root/<name>``.

    Ray gives every node the machine's address (it replaces a loopback
    ``--node-ip-address`` with it), so nodes differ by ports and temp dir only.

    Args:
        root: a short path (Unix socket paths under it must stay below 108 bytes).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.gcs_port, self.dashboard_port, self.client_port = free_ports(3)
        self.dashboard_url = f"http://127.0.0.1:{self.dashboard_port}"
        token_path = root / "auth_token"
        fd = os.open(token_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))
        self.auth_headers = {"Authorization": f"Bearer {token_path.read_text().strip()}"}
        self.env = _ray_env(token_path)
        self.nodes: list[RayNode] = []

    @property
    def head(self) -> RayNode:
        return self.nodes[0]

    def start_head(self, num_cpus: int, resources: Mapping[str, float], timeout_s: float = 120) -> RayNode:
        args = [
            "--head",
            "--port", str(self.gcs_port),
            "--include-dashboard", "true",
            "--dashboard-host", "127.0.0.1",
            "--dashboard-port", str(self.dashboard_port),
            "--ray-client-server-port", str(self.client_port),
        ]  # fmt: skip
        node = self._start("head", num_cpus, resources, args)
        deadline = time.monotonic() + timeout_s
        while not self._answers("/api/version"):
            self._check_alive(node, deadline)
            time.sleep(0.5)
        self._wait_registered(node, deadline)
        return node

    def add_node(self, name: str, num_cpus: int, resources: Mapping[str, float], timeout_s: float = 120) -> RayNode:
        node = self._start(name, num_cpus, resources, ["--address", f"127.0.0.1:{self.gcs_port}"])
        self._wait_registered(node, time.monotonic() + timeout_s)
        return node

    def _start(self, name: str, num_cpus: int, resources: Mapping[str, float], args: list[str]) -> RayNode:
        temp_dir = self.root / name
        temp_dir.mkdir()
        ports = [str(p) for flag, port in zip(NODE_PORT_FLAGS, free_ports(len(NODE_PORT_FLAGS))) for p in (flag, port)]
        common = [
            "--num-cpus", str(num_cpus),
            "--resources", json.dumps(dict(resources)),
            "--object-store-memory", str(OBJECT_STORE_BYTES),
            "--disable-usage-stats",
        ]  # fmt: skip
        node = RayNode(name, temp_dir, [*args, *common, *ports], self.env)
        self.nodes.append(node)
        return node

    def _wait_registered(self, node: RayNode, deadline: float) -> None:
        while True:
            node_id = node.node_id()
            if node_id is not None and self.node_state(node_id) == "ALIVE":
                return
            self._check_alive(node, deadline)
            time.sleep(0.5)

    @staticmethod
    def _check_alive(node: RayNode, deadline: float) -> None:
        if node.exited():
            raise RuntimeError(f"ray start of node {node.name} exited with {node.proc.returncode}:\n{node.tail()}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"node {node.name} not up in time:\n{node.tail()}")

    def _answers(self, path: str) -> bool:
        try:
            return httpx.get(self.dashboard_url + path, headers=self.auth_headers, timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def api(self, path: str, timeout_s: float = 30) -> Any:
        """GET a dashboard REST path (state API, Serve API) as JSON."""
        response = httpx.get(self.dashboard_url + path, headers=self.auth_headers, timeout=timeout_s)
        response.raise_for_status()
        return response.json()

    def node_states(self) -> dict[str, dict[str, Any]]:
        """Every node GCS knows (alive and dead), by node id."""
        body = self.api("/api/v0/nodes?limit=1000&detail=true")
        return {n["node_id"]: n for n in body["data"]["result"]["result"]}

    def node_state(self, node_id: str) -> str | None:
        try:
            node = self.node_states().get(node_id)
        except httpx.HTTPError:
            return None
        return None if node is None else str(node["state"])

    def serve_deploy(self, config: Path) -> None:
        """``serve deploy`` through the dashboard, as cluster/local/up.sh does."""
        proc = subprocess.run(
            [str(BIN / "serve"), "deploy", str(config), "--address", self.dashboard_url],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"serve deploy failed ({proc.returncode}): {proc.stdout[-2000:]}{proc.stderr[-2000:]}")

    def serve_application(self, name: str) -> dict[str, Any]:
        """The application's details from the Serve REST API (status, deployments, replicas with node ids)."""
        app: dict[str, Any] = self.api("/api/serve/applications/")["applications"].get(name, {})
        return app

    def replicas(self, app: str, deployment: str, state: str = "RUNNING") -> list[dict[str, Any]]:
        details = self.serve_application(app).get("deployments", {}).get(deployment, {})
        return [r for r in details.get("replicas", []) if r["state"] == state]

    def shutdown(self) -> None:
        """Stop every node this cluster started, workers first; nothing else on the machine is touched."""
        for node in reversed(self.nodes):
            node.stop()


def _ray_env(token_path: Path) -> dict[str, str]:
    """The caller's environment without its Ray address or token, plus cluster/local/ray-env.sh's settings."""
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_AUTH_TOKEN")}
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p),
        RAY_USAGE_STATS_ENABLED="0",
        RAY_worker_niceness=env.get("RAY_worker_niceness", "0"),
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN_PATH=str(token_path),
        # Serve's default proxy: HAProxy's fixed stats/metrics ports and /tmp/haproxy-serve would clash with the
        # session app's HAProxy on this one machine (and with the second node's own).
        RAY_SERVE_ENABLE_HA_PROXY="0",
        RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH="serve_app.proxy_guard:middlewares",
    )
    return env
