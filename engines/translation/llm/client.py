"""HTTP to an OpenAI-compatible server: the keep-alive client, ``/v1/models`` and chat completions with retries.

Overload (429), server faults (5xx) and connection errors are retried with
exponential backoff and full jitter, or after the server's ``Retry-After``;
a timeout is final because the deadline belongs to the caller, and any
other status is final because repeating it cannot help. Faults map to the
engine errors the router understands: ``EngineTimeout``,
``EngineUnavailable``, ``EngineFailure``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from engines.errors import EngineFailure, EngineTimeout, EngineUnavailable
from engines.llm.service_key import bearer_header, configured_key
from engines.translation.llm.stats import LLMStats


def normalize_base_url(url: str) -> str:
    """Accept ``http://h:8000`` or ``http://h:8000/v1``; paths below add ``/v1``."""
    return url.rstrip("/").removesuffix("/v1")


def new_http_client(base_url: str, api_key: str | None, timeout_s: float, max_inflight: int) -> httpx.Client:
    """A keep-alive client for ``max_inflight`` concurrent calls, sending the bearer key.

    ``api_key`` None means the service key (``MEDIATRANS_LLM_KEY``); ``""`` sends none.
    """
    headers = {"Accept": "application/json", **bearer_header(configured_key(api_key))}
    limits = httpx.Limits(max_keepalive_connections=max_inflight, max_connections=max_inflight * 2)
    return httpx.Client(base_url=base_url, headers=headers, timeout=timeout_s, limits=limits)


def list_models(http: httpx.Client) -> list[str]:
    """Ids from ``/v1/models``; any failure means the backend is unusable."""
    try:
        response = http.get("/v1/models")
        response.raise_for_status()
        return [m["id"] for m in response.json()["data"]]
    except httpx.TimeoutException as exc:
        raise EngineTimeout(f"LLM backend at {_root(http)} did not answer /v1/models") from exc
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
        raise EngineUnavailable(f"LLM backend at {_root(http)} is not usable: {exc!r}") from exc


def _root(http: httpx.Client) -> str:
    return str(http.base_url).rstrip("/")


def retry_after_s(response: httpx.Response, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or HTTP date), if any."""
    value = response.headers.get("retry-after", "").strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def backoff_delay(attempt: int, base_s: float, cap_s: float, hint_s: float | None) -> float:
    """Server hint when given, else exponential backoff with full jitter."""
    if hint_s is not None:
        return min(hint_s, cap_s)
    return random.uniform(0.0, min(cap_s, base_s * (2**attempt)))


def message_content(body: Any) -> str:
    """``choices[0].message.content`` of a chat completion, or ``EngineFailure``."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise EngineFailure("chat completion without choices[0].message.content") from exc
    if not isinstance(content, str):
        raise EngineFailure("chat completion content is not a string")
    return content


class ChatClient:
    """Posts chat completions with retries; maps transport faults to engine errors."""

    def __init__(
        self,
        client: httpx.Client,
        stats: LLMStats,
        *,
        max_retries: int,
        backoff_s: float,
        max_backoff_s: float,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._client = client
        self._stats = stats
        self._max_retries = max_retries
        self._backoff_s = backoff_s
        self._max_backoff_s = max_backoff_s
        self._sleep = sleep

    def complete(self, payload: dict[str, Any]) -> str:
        """The assistant text for ``payload``, retrying overload and outages."""
        response = self._post_with_retries(payload)
        try:
            body = response.json()
        except ValueError as exc:
            raise EngineFailure("chat completion body is not JSON") from exc
        self._stats.add("calls")
        return message_content(body)

    def _post_with_retries(self, payload: dict[str, Any]) -> httpx.Response:
        for attempt in range(self._max_retries + 1):
            response, problem = self._post_once(payload)
            if problem is None:
                return response
            if attempt == self._max_retries:
                break
            self._stats.add("retries")
            hint = retry_after_s(response) if response is not None else None
            self._sleep(backoff_delay(attempt, self._backoff_s, self._max_backoff_s, hint))
        self._stats.add("unavailable")
        raise EngineUnavailable(f"LLM backend unavailable: {problem}") from problem

    def _post_once(self, payload: dict[str, Any]) -> tuple[Any, httpx.HTTPError | None]:
        """One attempt: the response, or the retryable problem it ran into.

        A timeout is final because the deadline belongs to the caller;
        client errors are final because repeating them cannot help.
        """
        try:
            response = self._client.post("/v1/chat/completions", json=payload)
        except httpx.TimeoutException as exc:
            self._stats.add("timeouts")
            raise EngineTimeout(f"LLM backend did not answer in time: {exc!r}") from exc
        except httpx.TransportError as exc:
            return None, exc
        try:
            response.raise_for_status()
        except httpx.HTTPStatusError as exc:
            if _retryable(response):
                return response, exc
            raise EngineFailure(f"LLM backend rejected the request: {_excerpt(response)}") from exc
        return response, None


def _retryable(response: httpx.Response) -> bool:
    """Overload (429) and server faults (5xx) pass; other statuses will not."""
    return response.status_code == 429 or response.status_code >= 500


def _excerpt(response: httpx.Response) -> str:
    return f"HTTP {response.status_code} {response.text[:300]}"
