"""Loopback HTTP fakes for the LLM engine tests.

A threaded stdlib HTTP server that records every request and lets a test
decide each reply: scripted chat answers, errors with headers, slow answers,
or relaying to the real model server.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


def free_port() -> int:
    """A loopback port nobody listens on (right now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --------------------------------------------------------------------------
# Loopback HTTP plumbing
# --------------------------------------------------------------------------


@dataclass
class Reply:
    """What a loopback handler answers."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Seen:
    """One request as received, for assertions."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


Handler = Callable[[Seen], Reply]


class Loopback:
    """A threaded HTTP server on 127.0.0.1 that records requests and asks ``handler``."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.seen: list[Seen] = []
        self._connections: list[socket.socket] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._request_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def chat_requests(self) -> list[Seen]:
        return [s for s in self.seen if s.path.endswith("/chat/completions")]

    def close(self) -> None:
        """Stop listening and cut kept-alive connections, like a crashed server."""
        self._server.shutdown()
        self._server.server_close()
        for connection in self._connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def _request_class(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class _Request(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                owner._connections.append(self.connection)

            def do_GET(self) -> None:
                self._answer(None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                self._answer(json.loads(self.rfile.read(length) or b"null"))

            def _answer(self, body: Any) -> None:
                seen = Seen(self.command, self.path, dict(self.headers), body)
                owner.seen.append(seen)
                reply = owner.handler(seen)
                time.sleep(reply.delay_s)
                payload = json.dumps(reply.body).encode() if reply.body is not None else b""
                self.send_response(reply.status)
                for key, value in {"Content-Type": "application/json", **reply.headers}.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                """Quiet: pytest output is for failures."""

        return _Request


def forward_to(upstream: str, timeout_s: float = 120.0) -> Handler:
    """A handler that relays the request to ``upstream`` unchanged, its service key included."""

    def relay(seen: Seen) -> Reply:
        headers = {k: v for k, v in seen.headers.items() if k.lower() == "authorization"}
        response = httpx.request(seen.method, upstream + seen.path, json=seen.body, headers=headers, timeout=timeout_s)
        return Reply(response.status_code, response.json())

    return relay


# --------------------------------------------------------------------------
# Scripted model answers
# --------------------------------------------------------------------------

_SEGMENT_LINE = re.compile(r"^(\d+)\. (.*)$")


def _segment(written: str) -> str:
    """A numbered segment as the prompt wrote it: JSON-quoted or as is."""
    return json.loads(written) if written.startswith('"') else written


def segments_of(seen: Seen) -> list[str]:
    """The segments the engine asked to translate, from the request's user turn.

    That is the last user turn that is not a correction (in-context examples
    come before it, a re-ask's correction after). Batches number JSON-quoted
    segments; a single one-line segment follows a ``Text:`` line verbatim, or,
    in the plain wording, the blank line after the ask.
    """
    turns = [m["content"] for m in seen.body["messages"] if m["role"] == "user"]
    user = [t for t in turns if not t.startswith("Your answer could not be used")][-1]
    if user.startswith("Translate the following "):
        return [user.split("\n\n", 1)[1]]
    lines = user.splitlines()
    numbered = [_segment(m.group(2)) for m in map(_SEGMENT_LINE.match, lines) if m]
    if numbered or "Text:" not in lines:
        return numbered
    return [lines[lines.index("Text:") + 1]]


def completion(content: str) -> dict[str, Any]:
    """A minimal OpenAI chat-completion body."""
    message = {"role": "assistant", "content": content}
    return {"object": "chat.completion", "choices": [{"index": 0, "message": message}]}


def models_body(*ids: str) -> dict[str, Any]:
    return {"object": "list", "data": [{"id": i, "object": "model"} for i in ids]}
