"""Benchmark: 20 clients that stall their requests, against the real service; normal requests must go on.

Starts a real redis-server, Ray and the Serve app (with the proxy guards of serve_app/proxy_guard.py, as
``make run`` loads them, and ``max_inflight_requests`` set to 24 so 20 stalled requests would hold most of the
ingress's slots). Then:

1. baseline: the latency of ``GET /v1/account`` with nothing else going on;
2. opens 20 connections that stall: 10 send a head and 10 bytes of a 1,000-byte JSON body to
   ``POST /v1/glossaries``, 5 send half a request head, 5 connect and send nothing;
3. while they stall, times ``GET /v1/account`` again (the figure and its ratio to the baseline);
4. waits for every stalled connection to be answered (408 JSON) or closed, and reports when;
5. 5 s past the limit, fires 24 requests at once: all must be answered 200 (the stalled requests' slots were freed).

``--no-guard`` runs the same without the guards (the baseline): the stalled connections are still open
when the benchmark stops waiting (the limit + 30 s), and the burst meets the 10 slots the stalled bodies hold.

    .venv/bin/python loadtests/bench_slow_clients.py [--idle-s 30]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.bench_api import make_token  # noqa: E402
from loadtests.local_profile import start_ray  # noqa: E402
from tests.support.services import free_port, redis_server, wait_http_ok  # noqa: E402

SLOTS = 24


def start_app(redis_url: str, port: int, work: Path, idle_s: float, guard: bool) -> None:
    from ray import serve

    from serve_app.app import build_app

    os.environ["PYTHONPATH"] = f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    if guard:
        os.environ["RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH"] = "serve_app.proxy_guard:middlewares"
    os.environ["MEDIATRANS_HEADER_TIMEOUT_S"] = os.environ["MEDIATRANS_BODY_IDLE_TIMEOUT_S"] = str(idle_s)
    start_ray()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    args = {
        "redis_url": redis_url,
        "max_inflight_requests": SLOTS,
        "translator": {"engine": "apertium"},
        "worker": {"work_dir": str(work / "work")},
        "storage": {"root_dir": str(work / "files")},
    }
    serve.run(build_app(args), name="mediatrans", route_prefix="/")


def stall(port: int, token: str, kind: str) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port))
    if kind == "body":
        head = (
            f"POST /v1/glossaries HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        )
        conn.sendall(head.encode() + b'{"name": "')
    elif kind == "head":
        conn.sendall(f"POST /v1/glossaries HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n".encode())
    return conn


def answer_of(conn: socket.socket, started: float, limit_s: float) -> tuple[str, float]:
    """The status line a stalled connection got (or ``closed``) and when, seconds after it stalled."""
    conn.settimeout(limit_s)
    data, open_ = b"", False
    try:
        while chunk := conn.recv(65536):
            data += chunk
    except TimeoutError:
        open_ = True
    except ConnectionResetError:
        pass
    finally:
        conn.close()
    status = data.split(b"\r\n", 1)[0].decode(errors="replace") if data else "still open" if open_ else "closed"
    return status, time.monotonic() - started


def latencies(client: httpx.Client, auth: dict[str, str], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        response = client.get("/v1/account", headers=auth)
        response.raise_for_status()
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle-s", type=float, default=30.0, help="the proxy guards' limits (documented: 30 s)")
    parser.add_argument("--no-guard", action="store_true", help="the baseline: Serve's proxy without the guards")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp) / "redis") as server:
        port = free_port()
        start_app(server.url, port, Path(tmp), options.idle_s, guard=not options.no_guard)
        base = f"http://127.0.0.1:{port}"
        wait_http_ok(f"{base}/readyz", timeout_s=300)
        token = make_token(server.url)
        auth = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=base, timeout=60) as client:
            latencies(client, auth, 20)  # warm up
            baseline = latencies(client, auth, 50)
            kinds = ["body"] * 10 + ["head"] * 5 + ["silent"] * 5
            started = time.monotonic()
            stalled = [stall(port, token, kind) for kind in kinds]
            time.sleep(1.0)
            during = latencies(client, auth, 50)
            with concurrent.futures.ThreadPoolExecutor(len(stalled)) as waiting:
                pending = [waiting.submit(answer_of, c, started, options.idle_s + 30) for c in stalled]
                time.sleep(max(0.0, started + options.idle_s + 5 - time.monotonic()))  # past the limit, still held?
                with concurrent.futures.ThreadPoolExecutor(SLOTS) as pool:
                    burst = list(pool.map(lambda _: client.get("/v1/account", headers=auth).status_code, range(SLOTS)))
                answers = [future.result() for future in pending]
        b, d = statistics.median(baseline), statistics.median(during)
        print(f"GET /v1/account median: {b:.2f} ms alone, {d:.2f} ms beside 20 stalled connections ({d / b:.2f}x)")
        for kind in ("body", "head", "silent"):
            got = [answers[i] for i, k in enumerate(kinds) if k == kind]
            statuses = sorted({status for status, _ in got})
            print(f"stalled {kind:6s} x{len(got)}: {statuses}, answered after {max(s for _, s in got):.1f} s (max)")
        print(f"{options.idle_s + 5:.0f} s after the stall, {SLOTS} requests at once (all {SLOTS} slots): "
              f"{burst.count(200)} answered 200, {burst.count(503)} answered 503")  # fmt: skip


if __name__ == "__main__":
    main()
