"""Client settings and the description of one API request, shared by the sync and async clients."""

from __future__ import annotations

import contextlib
import io
import json
import os
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import httpx

from mediatrans_client._rate_limit import RateLimit
from mediatrans_client._retry import RetryPolicy, parse_retry_after
from mediatrans_client.errors import MediatransError, build_error

__version__ = "0.1.0"

BASE_URL_ENV = "MEDIATRANS_BASE_URL"
TOKEN_ENV = "MEDIATRANS_TOKEN"
DEFAULT_TIMEOUT_S = 30.0
USER_AGENT = f"mediatrans-client/{__version__}"

FilePart = tuple[str, str | Path | bytes, str | None]  # (filename, path on disk or the content itself, content type)


def api_root(url: str) -> str:
    """The server root the request paths (``/v1/...``) are joined to: ``https://host/v1/`` and ``https://host``
    both give ``https://host``, so a base URL copied with its ``/v1`` works."""
    root = url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


@dataclass(frozen=True)
class ClientSettings:
    """Where the API is, how to authenticate, and how patient to be."""

    base_url: str
    token: str | None
    timeout: float = DEFAULT_TIMEOUT_S
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    @classmethod
    def resolve(
        cls,
        base_url: str | None,
        token: str | None,
        timeout: float,
        max_attempts: int,
        retry_after_cap: float,
    ) -> ClientSettings:
        """Settings from arguments, falling back to ``MEDIATRANS_BASE_URL`` / ``MEDIATRANS_TOKEN``."""
        url = base_url or os.environ.get(BASE_URL_ENV)
        if not url:
            raise ValueError(f"No base URL: pass base_url= or set {BASE_URL_ENV}.")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1.")
        policy = RetryPolicy(max_attempts=max_attempts, retry_after_cap=retry_after_cap)
        return cls(base_url=api_root(url), token=token or os.environ.get(TOKEN_ENV) or None, timeout=timeout, retry=policy)

    def is_same_origin(self, url: str) -> bool:
        """Whether ``url`` (relative or absolute) points at the API, so the token may be sent there."""
        target = urlsplit(url)
        if not target.netloc:
            return True
        base = urlsplit(self.base_url)
        return (target.scheme, target.netloc.lower()) == (base.scheme, base.netloc.lower())


@dataclass
class RequestSpec:
    """One logical request; the transport may send it several times.

    ``files`` are opened afresh for every attempt, so a retried upload starts at byte 0.
    ``idempotent`` asks for an ``Idempotency-Key`` that stays the same on every attempt.
    """

    method: str
    url: str
    params: Mapping[str, Any] | None = None
    json: Any = None
    data: Mapping[str, str | list[str]] | None = None  # a list: the field repeated once per item
    files: Mapping[str, FilePart] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    idempotent: bool = False
    authenticated: bool = True

    def __post_init__(self) -> None:
        if self.idempotent and "Idempotency-Key" not in self.headers:
            self.headers["Idempotency-Key"] = str(uuid.uuid4())

    @property
    def idempotency_key(self) -> str | None:
        return self.headers.get("Idempotency-Key")


def request_headers(settings: ClientSettings, spec: RequestSpec) -> dict[str, str]:
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **spec.headers}
    if spec.authenticated and settings.token and settings.is_same_origin(spec.url):
        headers["Authorization"] = f"Bearer {settings.token}"
    return headers


@contextlib.contextmanager
def open_files(files: Mapping[str, FilePart] | None) -> Iterator[dict[str, tuple[str, IO[bytes], str | None]] | None]:
    """Open the upload parts for one attempt; httpx streams them in chunks. A part held as bytes is read from the start."""
    if not files:
        yield None
        return
    with contextlib.ExitStack() as stack:
        opened: dict[str, tuple[str, IO[bytes], str | None]] = {
            name: (filename, stack.enter_context(_open_part(source)), ctype) for name, (filename, source, ctype) in files.items()
        }
        yield opened


def _open_part(source: str | Path | bytes) -> IO[bytes]:
    return io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")


def form_fields(fields: Mapping[str, Any]) -> dict[str, str]:
    """Form values as the service parses them: booleans ``true``/``false``, lists as JSON, ``None`` left out."""
    out: dict[str, str] = {}
    for name, value in fields.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, (list, tuple, dict)):
            out[name] = json.dumps(value)
        else:
            out[name] = str(value)
    return out


def drop_none(fields: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def error_from_response(response: httpx.Response) -> MediatransError:
    """The exception for a non-success response whose body has been read."""
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    error = build_error(
        response.status_code,
        body,
        request_id=response.headers.get("x-request-id"),
        retry_after=parse_retry_after(response.headers.get("retry-after")),
        fallback_message=response.reason_phrase,
    )
    error.rate_limit = RateLimit.from_headers(response.headers)
    return error
