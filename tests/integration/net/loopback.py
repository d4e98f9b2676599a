"""A real HTTP server on 127.0.0.1 (stdlib, one thread per connection) for network tests.

It serves sized bodies, slow and lying responses, redirects and status codes,
and records every request so tests can assert what reached it (or that
nothing did). Handlers swallow client disconnects, which the tests provoke on
purpose when they cut a download short.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import datetime
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclasses.dataclass(frozen=True)
class Hit:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.hits: list[Hit] = []
        self.replies: dict[str, collections.deque[int]] = collections.defaultdict(collections.deque)
        self.lock = threading.Lock()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def url(self, path: str, host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}{path}"

    def program(self, path: str, *statuses: int) -> None:
        """Answer the next requests to ``path`` with these statuses, then 200."""
        with self.lock:
            self.replies[path].extend(statuses)

    def next_status(self, path: str) -> int:
        with self.lock:
            queue = self.replies[path]
            return queue.popleft() if queue else 200

    def record(self, hit: Hit) -> None:
        with self.lock:
            self.hits.append(hit)

    def handle_error(self, request: object, client_address: object) -> None:
        """Client disconnects are expected; keep test output clean."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: LoopbackServer

    def log_message(self, format: str, *args: object) -> None:
        """Silence the per-request log lines."""

    def do_GET(self) -> None:
        self._dispatch(b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self._dispatch(self.rfile.read(length))

    def do_PUT(self) -> None:
        """Object upload (fake S3): records the body, answers the programmed status."""
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.record(Hit(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        self._send(self.server.next_status(urlsplit(self.path).path), b"")

    def _dispatch(self, body: bytes) -> None:
        self.server.record(Hit(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        name, _, arg = parts.path.strip("/").partition("/")
        route = getattr(self, f"r_{name.replace('-', '_')}", None)
        try:
            if route is None:
                self._send(404, b"no such route")
            else:
                route(arg, query)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True

    def _send(self, status: int, body: bytes, content_type: str = "text/plain", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def r_file(self, arg: str, query: dict[str, str]) -> None:
        """``/file/<n>``: n bytes of a repeating pattern, declared length."""
        self._send(200, pattern(int(arg)), "video/mp4")

    def r_echo_host(self, arg: str, query: dict[str, str]) -> None:
        self._send(200, self.headers.get("Host", "").encode())

    def r_status(self, arg: str, query: dict[str, str]) -> None:
        self._send(int(arg), b"status body")

    def r_redirect(self, arg: str, query: dict[str, str]) -> None:
        """``/redirect?to=<url>``: 302 to ``to``."""
        self._send(302, b"", Location=query["to"])

    def r_loop(self, arg: str, query: dict[str, str]) -> None:
        self._send(302, b"", Location="/loop")

    def r_lying(self, arg: str, query: dict[str, str]) -> None:
        """Declares ``arg`` bytes, sends a few, then hangs up."""
        self.send_response(200)
        self.send_header("Content-Length", arg)
        self.end_headers()
        self.wfile.write(b"x" * 10)
        self.close_connection = True

    def r_chunked(self, arg: str, query: dict[str, str]) -> None:
        """``/chunked/<n>``: n bytes with no declared length, in 16 KiB chunks."""
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        remaining = int(arg)
        while remaining > 0:
            size = min(16384, remaining)
            self.wfile.write(f"{size:x}\r\n".encode() + b"y" * size + b"\r\n")
            remaining -= size
        self.wfile.write(b"0\r\n\r\n")

    def r_slow(self, arg: str, query: dict[str, str]) -> None:
        """``/slow/<seconds>``: 20 bytes declared, one byte every ``seconds / 20``."""
        self.send_response(200)
        self.send_header("Content-Length", "20")
        self.end_headers()
        for _ in range(20):
            self.wfile.write(b"s")
            self.wfile.flush()
            time.sleep(float(arg) / 20)

    def r_hook(self, arg: str, query: dict[str, str]) -> None:
        """``/hook/<name>``: webhook receiver answering programmed statuses."""
        self._send(self.server.next_status(urlsplit(self.path).path), b"ok")

    def r_hang(self, arg: str, query: dict[str, str]) -> None:
        """Answers nothing for ``arg`` seconds."""
        time.sleep(float(arg))
        self._send(200, b"late")


def pattern(size: int) -> bytes:
    return (b"0123456789abcdef" * (size // 16 + 1))[:size]


def tls_contexts(workdir: Path, hostname: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A throw-away CA and a certificate for ``hostname`` (no IP in it).

    Returns the server context and a client context that trusts only that CA.
    """
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test CA")])
    ca = (
        _builder(ca_name, ca_name, ca_key.public_key(), now)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        _builder(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)]), ca_name, leaf_key.public_key(), now)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(hostname)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    cert_file, key_file = workdir / "leaf.pem", workdir / "leaf.key"
    cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(cert_file, key_file)
    client = ssl.create_default_context(cadata=ca.public_bytes(serialization.Encoding.PEM).decode())
    return server, client


def _builder(
    subject: x509.Name, issuer: x509.Name, key: ec.EllipticCurvePublicKey, now: datetime.datetime
) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
    )


@contextlib.contextmanager
def running(tls: ssl.SSLContext | None = None) -> Iterator[LoopbackServer]:
    """Serve on 127.0.0.1:<free port> in a background thread, optionally over TLS."""
    server = LoopbackServer()
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
