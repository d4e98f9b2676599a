"""Loopback HTTP servers and a fake resolver for the outbound-network tests.

Everything listens on 127.0.0.1. Host names ending in ``.test`` are answered
from a table instead of DNS, so a test can give the loopback server a public-
looking name without any real lookup leaving the machine.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.net.loopback import LoopbackServer, running, tls_contexts

Resolver = Callable[[dict[str, list[str]]], list[str]]


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with running() as srv:
        yield srv


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> Resolver:
    """Install a table for ``*.test`` names; returns the list of names looked up."""
    real = socket.getaddrinfo
    queries: list[str] = []

    def install(table: dict[str, list[str]]) -> list[str]:
        def getaddrinfo(host: object, port: object, *args: object, **kwargs: object) -> list[tuple[Any, ...]]:
            if not (isinstance(host, str) and host.endswith(".test")):
                return list(real(host, port, *args, **kwargs))  # type: ignore[arg-type]
            queries.append(host)
            if host not in table:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            family = {True: socket.AF_INET6, False: socket.AF_INET}
            return [(family[":" in a], socket.SOCK_STREAM, 6, "", (a, port)) for a in table[host]]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
        return queries

    return install


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[LoopbackServer, object]]:
    """An https loopback server whose certificate names only ``media.test``; yields it and a trusting client context."""
    server_ctx, client_ctx = tls_contexts(tmp_path, "media.test")
    with running(server_ctx) as srv:
        yield srv, client_ctx
