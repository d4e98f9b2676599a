"""Start real services for tests: redis-server on a free loopback port."""

from __future__ import annotations

import contextlib
import random
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: Ports for servers a test stops and starts again: outside the kernel's ephemeral range (32768+) and
#: Ray's worker ports (10002-19999), so no other process is handed the port while the server is down.
RESTART_PORTS = range(20000, 32000)


def restartable_port() -> int:
    for _ in range(200):
        port = random.choice(RESTART_PORTS)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port for a restartable server")


class RedisServer:
    """A throw-away redis-server on a fixed free port that tests can stop, kill and start again.

    With ``persistent`` it keeps an append-only file fsynced on every write, so
    a restart (even after SIGKILL) loses nothing that was acknowledged.
    """

    def __init__(self, workdir: Path, *, persistent: bool = False) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed; run `make setup`")
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = restartable_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if persistent else ["--appendonly", "no"]
        self.cmd = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", *persistence, "--dir", str(workdir)]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_for_port(self.port, self.proc)
        with socket.create_connection(("127.0.0.1", self.port), 5) as conn:  # our Redis, not whoever took the port
            conn.sendall(b"PING\r\n")
            if not conn.recv(16).startswith(b"+PONG") or self.proc.poll() is not None:
                raise RuntimeError(f"port {self.port} is not answered by the redis-server just started")

    def stop(self, *, kill: bool = False) -> None:
        if self.proc is None:
            return
        self.proc.kill() if kill else self.proc.terminate()
        self.proc.wait(10)
        self.proc = None

    def restart(self, *, kill: bool = False) -> None:
        self.stop(kill=kill)
        self.start()


@contextlib.contextmanager
def redis_server(workdir: Path, *, persistent: bool = False) -> Iterator[RedisServer]:
    """A throw-away redis-server; yields it (``.url``, ``.stop()``, ``.start()``, ``.restart()``)."""
    server = RedisServer(workdir, persistent=persistent)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on {port}")


def wait_http_ok(url: str, timeout_s: float) -> None:
    """Poll ``url`` until it answers 200 or the timeout passes."""
    deadline = time.monotonic() + timeout_s
    last: object = None
    while time.monotonic() < deadline:
        try:
            response = httpx.get(url, timeout=5)
            if response.status_code == 200:
                return
            last = response.text
        except httpx.HTTPError as exc:
            last = exc
        time.sleep(0.5)
    raise TimeoutError(f"{url} not ready after {timeout_s}s: {last}")


@contextlib.contextmanager
def s3_server(workdir: Path) -> Iterator[str]:
    """moto's standalone S3-compatible server on a free loopback port; yields its endpoint URL."""
    binary = Path(sys.executable).with_name("moto_server")
    if not binary.exists():
        raise RuntimeError("moto_server is not installed; run `make setup`")
    port = free_port()
    log = (workdir / "moto.log").open("wb")
    proc = subprocess.Popen([str(binary), "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_for_port(port, proc, timeout_s=60)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
