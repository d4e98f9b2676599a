"""Slow clients at the proxy: a head or a body that stalls is answered 408 and the connection freed.

A real uvicorn server (what Serve's proxy runs) with the proxy's middleware stack built the way Serve builds
it, Serve's own request-id middleware included; clients are raw sockets, so a request can stall anywhere.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from ray.serve._private.http_util import _apply_middlewares
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from core.context import is_valid
from serve_app import proxy_guard

IDLE_S = 0.6


async def echo(request: Request) -> JSONResponse:
    body = await request.body()
    return JSONResponse({"bytes": len(body), "request_id": request.headers.get("x-request-id")})


@pytest.fixture
def server() -> Iterator[tuple[int, dict[str, int]]]:
    proxy_guard.install_header_timeout(IDLE_S)
    app = Starlette(routes=[Route("/v1/grammar", echo, methods=["POST", "GET"])])
    stack = _apply_middlewares(
        app, [Middleware(proxy_guard.RequestIdGuard), Middleware(proxy_guard.BodyReadTimeout, idle_timeout_s=IDLE_S)]
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(stack, lifespan="off", log_level="critical", timeout_keep_alive=30)
    uv = uvicorn.Server(config)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(uv.serve(sockets=[sock]),), daemon=True)
    thread.start()
    while not uv.started:
        time.sleep(0.01)
    try:
        yield sock.getsockname()[1], {}
    finally:
        uv.should_exit = True
        thread.join(10)
        proxy_guard.install_header_timeout(proxy_guard.HEADER_TIMEOUT_S)


def _read_all(conn: socket.socket, wait_s: float) -> bytes:
    conn.settimeout(wait_s)
    data = b""
    try:
        while chunk := conn.recv(65536):
            data += chunk
    except TimeoutError:
        pass
    return data


def _request(port: int, raw: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(raw)  # Connection: close: the server closes once it has answered
        return _read_all(conn, 5)


def _json_of(response: bytes) -> dict:
    return json.loads(response.split(b"\r\n\r\n", 1)[1])


def test_a_head_never_finished_is_answered_408_and_closed(server: tuple[int, dict]) -> None:
    port, _ = server
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(b"POST /v1/grammar HTTP/1.1\r\nHost: x\r\n")  # never the blank line
        started = time.monotonic()
        response = _read_all(conn, 5)
        assert time.monotonic() - started < IDLE_S + 2
    assert response.startswith(b"HTTP/1.1 408")
    body = _json_of(response)
    assert body["code"] == 4008 and is_valid(body["request_id"])


def test_a_stalled_body_is_answered_408_while_others_are_served(server: tuple[int, dict]) -> None:
    port, _ = server
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
    try:
        for conn in slow:
            conn.sendall(b"POST /v1/grammar HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789")
        ok = _request(port, b"POST /v1/grammar HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
        assert ok.startswith(b"HTTP/1.1 200") and _json_of(ok)["bytes"] == 2
        started = time.monotonic()
        answers = [_read_all(conn, 5) for conn in slow]
        assert time.monotonic() - started < IDLE_S + 3
    finally:
        for conn in slow:
            conn.close()
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 408")
        assert _json_of(answer)["code"] == 4008


def test_a_body_trickled_within_the_idle_limit_is_read(server: tuple[int, dict]) -> None:
    port, _ = server
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(b"POST /v1/grammar HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nConnection: close\r\n\r\n")
        for piece in (b"ab", b"cd", b"ef"):
            time.sleep(IDLE_S / 3)
            conn.sendall(piece)
        response = _read_all(conn, 5)
    assert response.startswith(b"HTTP/1.1 200") and _json_of(response)["bytes"] == 6


@pytest.mark.parametrize("given", ["<script>alert(1)</script>", "x" * 5000, "id with spaces"])
def test_an_unusable_request_id_never_reaches_the_answer(server: tuple[int, dict], given: str) -> None:
    port, _ = server
    raw = f"GET /v1/grammar HTTP/1.1\r\nHost: x\r\nX-Request-ID: {given}\r\nConnection: close\r\n\r\n".encode()
    response = _request(port, raw)
    head, _ = response.split(b"\r\n\r\n", 1)
    echoed = [
        line.split(b":", 1)[1].strip().decode() for line in head.split(b"\r\n") if line.lower().startswith(b"x-request-id:")
    ]
    assert echoed and all(is_valid(value) and value != given for value in echoed)
    assert is_valid(_json_of(response)["request_id"])


def test_a_usable_request_id_is_kept(server: tuple[int, dict]) -> None:
    port, _ = server
    response = _request(port, b"GET /v1/grammar HTTP/1.1\r\nHost: x\r\nX-Request-ID: abc-123\r\nConnection: close\r\n\r\n")
    assert b"abc-123" in response.split(b"\r\n\r\n", 1)[0]
