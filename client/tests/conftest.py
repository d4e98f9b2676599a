"""A loopback HTTP server (http.server in a thread) whose answers each test programs."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

SERVICE_ROOT = Path(__file__).resolve().parents[2]  # /work/main: the service, for its own error table and signer
MEDIATRANS = Path(sys.executable).with_name("mediatrans")


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list → JSON; bytes → as is
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> tuple[bytes, dict[str, str]]:
        headers = dict(self.headers)
        if isinstance(self.body, (bytes, bytearray)):
            payload = bytes(self.body)
            headers.setdefault("Content-Type", "application/octet-stream")
        elif self.body is None:
            payload = b""
        else:
            payload = json.dumps(self.body).encode()
            headers.setdefault("Content-Type", "application/json")
        return payload, headers


Route = Callable[[Recorded], Reply]


class LoopbackServer:
    """Routes ``(METHOD, path)`` to callables; records every request it receives."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], Route] = {}
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _read_body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks = []
                    while True:
                        size = int(self.rfile.readline().strip() or b"0", 16)
                        if size == 0:
                            self.rfile.readline()
                            return b"".join(chunks)
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _handle(self) -> None:
                parts = urlsplit(self.path)
                recorded = Recorded(
                    self.command,
                    parts.path,
                    parse_qs(parts.query),
                    {k.lower(): v for k, v in self.headers.items()},
                    self._read_body(),
                )
                with server._lock:
                    server.requests.append(recorded)
                route = server.routes.get((self.command, parts.path))
                reply = route(recorded) if route else Reply(404, {"code": 2004, "message": "no route", "request_id": "rid-404"})
                payload, headers = reply.encoded()
                self.send_response(reply.status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if reply.status != 304:
                    self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if reply.status != 304:
                    self.wfile.write(payload)

            do_GET = do_POST = do_DELETE = do_PUT = _handle

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def route(self, method: str, path: str) -> Callable[[Route], Route]:
        def register(fn: Route) -> Route:
            self.routes[(method, path)] = fn
            return fn

        return register

    def requests_to(self, method: str, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == method and r.path == path]

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    srv = LoopbackServer()
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def client(server: LoopbackServer) -> Iterator[Any]:
    from mediatrans_client import Client

    with Client(server.base_url, "mt_test_token", timeout=5.0) as c:
        yield c


def task_record(task_id: str, status: str, progress: int | None = None, stage: str | None = None, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"task_id": task_id, "status": status, "created_at": "2026-01-01T00:00:00Z", **extra}
    if progress is not None:
        record["progress"] = progress
    if stage is not None:
        record["stage"] = stage
    return record


def run(args: list[str], env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The ``mediatrans`` command as a subprocess."""
    return subprocess.run([str(MEDIATRANS), *args], env=env, input=stdin, capture_output=True, text=True, timeout=60)


@pytest.fixture
def env(server: LoopbackServer, tmp_path: Path) -> dict[str, str]:
    """The environment of a ``mediatrans`` run against ``server``, with its config and cache under ``tmp_path``."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEDIATRANS_")},
        "MEDIATRANS_BASE_URL": server.base_url,
        "MEDIATRANS_TOKEN": "mt_cli_token",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "COLUMNS": "200",
    }


# A video task (PARENT), its transcript, and the revision (CHILD) the service accepts for it.
PARENT = "a" * 32
CHILD = "b" * 32

TRANSCRIPT = {
    "task_id": PARENT,
    "parent_task_id": None,
    "revision": 0,
    "source_lang": "en",
    "target_lang": "es",
    "duration": 12.3,
    "speakers": ["Speaker 1", "Speaker 2"],
    "segments": [
        {"id": "s1", "start": 0.0, "end": 2.5, "speaker": "Speaker 1", "source": "Hello.", "translation": "Hola."},
        {
            "id": "s2",
            "start": 2.5,
            "end": 6.0,
            "speaker": "Speaker 2",
            "source": "Hi everyone.",
            "translation": "Hola a todos.",
            "dubbing": {"start": 2.6, "end": 5.9, "tempo": 1.05, "method": "stretch", "reasked": False},
            "confidence": 0.93,  # a field this client does not know yet
        },
    ],
}

ACCEPTED = {
    "task_id": CHILD,
    "status": "queued",
    "created_at": "2026-01-01T00:00:00Z",
    "estimated_seconds": 20,
    "parent_task_id": PARENT,
    "revision": 1,
}


def serve_revise(server: LoopbackServer, task_id: str = PARENT) -> list[Recorded]:
    """``POST …/revise`` that creates at most once per Idempotency-Key, like the service."""
    created: dict[str, dict[str, Any]] = {}
    seen: list[Recorded] = []

    def handler(request: Recorded) -> Reply:
        seen.append(request)
        return Reply(200, created.setdefault(request.headers["idempotency-key"], ACCEPTED))

    server.route("POST", f"/v1/video/task/{task_id}/revise")(handler)
    return seen


def added_task_id(lang: str) -> str:
    """The id of the task the loopback service creates for an added language ``lang`` (32 hex digits, one per language)."""
    return hashlib.md5(lang.encode()).hexdigest()


def serve_add_language(server: LoopbackServer, task_id: str = PARENT, refused: Collection[str] = ()) -> list[Recorded]:
    """``POST …/translations`` that creates at most once per Idempotency-Key, like the service.

    Each language in ``refused`` is answered 400 ``INVALID_LANG_CODE``.
    """
    created: dict[str, dict[str, Any]] = {}
    seen: list[Recorded] = []

    def handler(request: Recorded) -> Reply:
        seen.append(request)
        lang = json.loads(request.body)["target_lang"]
        if lang in refused:
            return Reply(400, {"code": "INVALID_LANG_CODE", "message": f"Unsupported target {lang}.", "request_id": f"rq-{lang}"})
        answer = {
            "task_id": added_task_id(lang),
            "status": "queued",
            "created_at": "2026-01-01T00:00:00Z",
            "estimated_seconds": 41,
            "parent_task_id": task_id,
            "target_lang": lang,
        }
        return Reply(200, created.setdefault(request.headers["idempotency-key"], answer))

    server.route("POST", f"/v1/video/task/{task_id}/translations")(handler)
    return seen


# A submission (video or subtitle file) and the task the loopback service creates for it.
MAIN = "c" * 32


def form_parts(request: Recorded) -> dict[str, tuple[str | None, bytes]]:
    """The fields of a form body by name: (the file name of a file part, else None; the content as sent)."""
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("application/x-www-form-urlencoded"):
        return {name: (None, values[0].encode()) for name, values in parse_qs(request.body.decode()).items()}
    boundary = re.search(r'boundary="?([^";]+)"?', content_type)
    assert boundary is not None, f"not a form: {content_type!r}"
    parts: dict[str, tuple[str | None, bytes]] = {}
    for chunk in request.body.split(b"--" + boundary.group(1).encode())[1:-1]:
        head, _, content = chunk.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        disposition = head.decode("utf-8")
        name = re.search(r'\bname="([^"]*)"', disposition)
        filename = re.search(r'\bfilename="([^"]*)"', disposition)
        assert name is not None and name.group(1) not in parts, disposition
        parts[name.group(1)] = (filename.group(1) if filename else None, content.removesuffix(b"\r\n"))
    return parts


def form_fields(request: Recorded) -> dict[str, str]:
    """The text fields of a form body (file parts left out)."""
    return {name: content.decode() for name, (filename, content) in form_parts(request).items() if filename is None}


def serve_submission(server: LoopbackServer, path: str = "/v1/video/translate", task_id: str = MAIN) -> list[Recorded]:
    """``POST path`` (a video or subtitle submission) that creates at most once per Idempotency-Key, like the service.

    Its answer lists a task per language of ``additional_target_langs`` (id :func:`added_task_id`), in their order.
    """
    created: dict[str, dict[str, Any]] = {}
    seen: list[Recorded] = []

    def handler(request: Recorded) -> Reply:
        seen.append(request)
        answer: dict[str, Any] = {
            "task_id": task_id,
            "status": "queued",
            "created_at": "2026-01-01T00:00:00Z",
            "estimated_seconds": 140,
        }
        additional = form_fields(request).get("additional_target_langs")
        if additional:
            answer["additional_tasks"] = [{"target_lang": lang, "task_id": added_task_id(lang)} for lang in additional.split(",")]
        return Reply(200, created.setdefault(request.headers["idempotency-key"], answer))

    server.route("POST", path)(handler)
    return seen


def form_values(request: Recorded) -> dict[str, list[str]]:
    """Every text field of a form body with all its values, in order (a repeated field keeps each)."""
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("application/x-www-form-urlencoded"):
        return parse_qs(request.body.decode(), keep_blank_values=True)
    boundary = re.search(r'boundary="?([^";]+)"?', content_type)
    assert boundary is not None, content_type
    values: dict[str, list[str]] = {}
    for chunk in request.body.split(b"--" + boundary.group(1).encode())[1:-1]:
        head, _, content = chunk.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        disposition = head.decode("utf-8")
        name = re.search(r'\bname="([^"]*)"', disposition)
        assert name is not None
        if "filename=" not in disposition:
            values.setdefault(name.group(1), []).append(content.removesuffix(b"\r\n").decode("utf-8"))
    return values


def serve_form(server: LoopbackServer, path: str = "/v1/video/translate") -> list[Recorded]:
    """``POST path`` answering a queued task (the form may repeat a field, so it is not read here)."""
    seen: list[Recorded] = []

    def handler(request: Recorded) -> Reply:
        seen.append(request)
        return Reply(200, task_record(MAIN, "queued"))

    server.route("POST", path)(handler)
    return seen
