"""Sending a :class:`RequestSpec` with retries, over a sync or an async httpx client.

Retried: connection failures and the statuses of :class:`RetryPolicy` (429, 502,
503, 504), waiting ``Retry-After`` when the server gives one, else exponential
backoff with full jitter. A keyed request sends the same ``Idempotency-Key`` on
every attempt, so the server creates at most once.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import httpx

from mediatrans_client._rate_limit import RateLimit
from mediatrans_client._requests import ClientSettings, RequestSpec, error_from_response, open_files, request_headers
from mediatrans_client._retry import parse_retry_after
from mediatrans_client.errors import ConnectionFailedError

KEEPALIVE = httpx.Limits(max_keepalive_connections=10, max_connections=20, keepalive_expiry=30.0)


def _connection_error(exc: httpx.TransportError, attempts: int) -> ConnectionFailedError:
    return ConnectionFailedError(None, f"{type(exc).__name__}: {exc} (after {attempts} attempt(s))")


def _is_final(response: httpx.Response) -> bool:
    return response.is_success or response.status_code == 304


class _RateLimitTracking:
    """Keeps the rate-limit state of the latest response that carried one (every attempt counts)."""

    last_rate_limit: RateLimit | None = None

    def _observe(self, response: httpx.Response) -> None:
        observed = RateLimit.from_headers(response.headers)
        if observed is not None:
            self.last_rate_limit = observed


class SyncTransport(_RateLimitTracking):
    """Blocking transport over one keep-alive :class:`httpx.Client`."""

    def __init__(
        self,
        settings: ClientSettings,
        http: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self._owns_http = http is None
        self._http = http or httpx.Client(base_url=settings.base_url, timeout=settings.timeout, limits=KEEPALIVE)
        self._sleep = sleep
        self._rng = rng or random.Random()

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def request(self, spec: RequestSpec) -> httpx.Response:
        """Send ``spec`` until it succeeds (2xx or 304) and return the read response; raise otherwise."""
        return self._send(spec, stream=False)

    @contextlib.contextmanager
    def stream(self, spec: RequestSpec) -> Iterator[httpx.Response]:
        """Like :meth:`request`, but the successful body is left unread for ``iter_bytes``."""
        response = self._send(spec, stream=True)
        try:
            yield response
        finally:
            response.close()

    def _send(self, spec: RequestSpec, stream: bool) -> httpx.Response:
        policy = self.settings.retry
        headers = request_headers(self.settings, spec)
        for attempt in range(1, policy.max_attempts + 1):
            try:
                with open_files(spec.files) as files:
                    request = self._http.build_request(
                        spec.method, spec.url, params=spec.params, json=spec.json, data=spec.data, files=files, headers=headers
                    )
                    response = self._http.send(request, stream=stream)
            except httpx.TransportError as exc:
                if attempt >= policy.max_attempts:
                    raise _connection_error(exc, attempt) from exc
                self._sleep(policy.delay(attempt, None, self._rng))
                continue
            self._observe(response)
            if _is_final(response):
                return response
            if stream:
                response.read()
                response.close()
            if attempt < policy.max_attempts and policy.should_retry_status(response, spec.idempotency_key is not None):
                self._sleep(policy.delay(attempt, parse_retry_after(response.headers.get("retry-after")), self._rng))
                continue
            raise error_from_response(response)
        raise AssertionError("unreachable: the loop returns or raises")


class AsyncTransport(_RateLimitTracking):
    """Asyncio transport over one keep-alive :class:`httpx.AsyncClient`."""

    def __init__(
        self,
        settings: ClientSettings,
        http: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self._owns_http = http is None
        self._http = http or httpx.AsyncClient(base_url=settings.base_url, timeout=settings.timeout, limits=KEEPALIVE)
        self._sleep = sleep
        self._rng = rng or random.Random()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def request(self, spec: RequestSpec) -> httpx.Response:
        """Send ``spec`` until it succeeds (2xx or 304) and return the read response; raise otherwise."""
        return await self._send(spec, stream=False)

    @contextlib.asynccontextmanager
    async def stream(self, spec: RequestSpec) -> AsyncIterator[httpx.Response]:
        """Like :meth:`request`, but the successful body is left unread for ``aiter_bytes``."""
        response = await self._send(spec, stream=True)
        try:
            yield response
        finally:
            await response.aclose()

    async def _send(self, spec: RequestSpec, stream: bool) -> httpx.Response:
        policy = self.settings.retry
        headers = request_headers(self.settings, spec)
        for attempt in range(1, policy.max_attempts + 1):
            try:
                with open_files(spec.files) as files:
                    request = self._http.build_request(
                        spec.method, spec.url, params=spec.params, json=spec.json, data=spec.data, files=files, headers=headers
                    )
                    response = await self._http.send(request, stream=stream)
            except httpx.TransportError as exc:
                if attempt >= policy.max_attempts:
                    raise _connection_error(exc, attempt) from exc
                await self._sleep(policy.delay(attempt, None, self._rng))
                continue
            self._observe(response)
            if _is_final(response):
                return response
            if stream:
                await response.aread()
                await response.aclose()
            if attempt < policy.max_attempts and policy.should_retry_status(response, spec.idempotency_key is not None):
                delay = policy.delay(attempt, parse_retry_after(response.headers.get("retry-after")), self._rng)
                await self._sleep(delay)
                continue
            raise error_from_response(response)
        raise AssertionError("unreachable: the loop returns or raises")
