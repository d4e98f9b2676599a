"""A loopback HTTP server for tests: serves files and records POSTed callbacks."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.time)

    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class LoopbackServer:
    """Files under ``root`` at ``/files/<name>``; any POST is recorded in ``received``."""

    root: Path
    port: int = 0
    received: list[Received] = field(default_factory=list)
    fail_first: int = 0
    event: threading.Event = field(default_factory=threading.Event)

    def url(self, path: str) -> str:
        return f"http://localhost:{self.port}{path}"


@contextlib.contextmanager
def loopback_server(root: Path, port: int = 0) -> Iterator[LoopbackServer]:
    state = LoopbackServer(root)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            target = state.root / self.path.removeprefix("/files/")
            if not self.path.startswith("/files/") or not target.is_file():
                self.send_error(404)
                return
            data = target.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if state.fail_first > 0:
                state.fail_first -= 1
                self.send_error(503)
                return
            state.received.append(Received(self.path, dict(self.headers.items()), body))
            state.event.set()
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
