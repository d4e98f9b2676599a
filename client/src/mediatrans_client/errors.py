"""One exception tree for every failure the API or the network can produce.

The service answers every error with ``{"code", "message", "request_id", "details"?}``
(string codes on video endpoints, per-group numeric codes elsewhere). The class is
picked from the HTTP status first, then from the code when no status is known
(the ``error`` of a failed task).
"""

from __future__ import annotations

from typing import Any

from mediatrans_client._rate_limit import RateLimit

Code = int | str | None


class MediatransError(Exception):
    """Base of every error raised by this package.

    Attributes:
        code: the contract code (``"UNAUTHORIZED"``, ``2001``...), ``None`` for network failures.
        message: the service's human sentence (or a local description).
        request_id: the ``X-Request-ID`` of the failed request, when one was answered.
        status: the HTTP status, ``None`` when no response was received.
        details: per-field problems of validation errors.
        rate_limit: the account's rate-limit state the error response carried (``None`` without one).
    """

    rate_limit: RateLimit | None = None

    def __init__(
        self,
        code: Code,
        message: str,
        request_id: str | None = None,
        status: int | None = None,
        details: list[Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id
        self.status = status
        self.details = list(details or [])

    def __str__(self) -> str:
        parts = [f"[{self.status}]" if self.status else "", f"{self.code}:" if self.code is not None else "", self.message]
        if self.request_id:
            parts.append(f"(request_id={self.request_id})")
        return " ".join(p for p in parts if p)


class _RetryAfterMixin:
    retry_after: float | None = None


class AuthenticationError(MediatransError):
    """401: missing, invalid, revoked or expired token."""


class PermissionDeniedError(MediatransError):
    """403: the token's account may not use this resource or endpoint group."""


class NotFoundError(MediatransError):
    """404: no such task, voice, resource or route."""


class InvalidRequestError(MediatransError):
    """400, 413, 415, 422: the request was refused as it stands; fix it before resending."""


class ConflictError(MediatransError):
    """409: data conflict, or an ``Idempotency-Key`` reused with another body."""


class LinkExpiredError(MediatransError):
    """410: a download link past its 24 h validity (resubmit the task)."""


class QuotaExceededError(_RetryAfterMixin, MediatransError):
    """402 (video), 456 (other groups) or 403 2004 (voice slots full): the plan quota is used up."""


class RateLimitedError(_RetryAfterMixin, MediatransError):
    """429: too many requests; ``retry_after`` says how long to wait."""


class RequestTimeoutError(MediatransError):
    """408: the service stopped waiting for the request (its head or body stalled); sending it again may succeed."""


class ServerError(MediatransError):
    """5xx: the service failed; retrying later may succeed."""


class ServiceBusyError(_RetryAfterMixin, ServerError):
    """503: the service is overloaded; ``retry_after`` says how long to wait."""


class ConnectionFailedError(MediatransError):
    """No HTTP answer: connection refused or reset, DNS failure or timeout."""


class TaskFailedError(MediatransError):
    """A waited-for task ended ``failed`` or ``expired``; ``task`` holds the record."""

    task: Any = None


class WaitTimeoutError(MediatransError):
    """A wait for a task ran past its ``timeout``; ``task`` holds the last record seen."""

    task: Any = None


_BY_STATUS: dict[int, type[MediatransError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    402: QuotaExceededError,
    403: PermissionDeniedError,
    404: NotFoundError,
    408: RequestTimeoutError,
    409: ConflictError,
    410: LinkExpiredError,
    413: InvalidRequestError,
    415: InvalidRequestError,
    422: InvalidRequestError,
    429: RateLimitedError,
    456: QuotaExceededError,
    503: ServiceBusyError,
}

# Codes of the contract and docs/errors.md, used when no status is known.
_BY_STRING_CODE: dict[str, type[MediatransError]] = {
    "UNAUTHORIZED": AuthenticationError,
    "FORBIDDEN": PermissionDeniedError,
    "TASK_NOT_FOUND": NotFoundError,
    "NOT_FOUND": NotFoundError,
    "QUOTA_EXCEEDED": QuotaExceededError,
    "RATE_LIMITED": RateLimitedError,
    "REQUEST_TIMEOUT": RequestTimeoutError,
    "CONFLICT": ConflictError,
    "IDEMPOTENCY_KEY_REUSED": ConflictError,
    "LINK_EXPIRED": LinkExpiredError,
    "INTERNAL_ERROR": ServerError,
    "SERVICE_BUSY": ServiceBusyError,
    "METHOD_NOT_ALLOWED": InvalidRequestError,
    "TASK_EXPIRED": TaskFailedError,
}

_BY_NUMERIC_CODE: dict[int, type[MediatransError]] = {
    1003: InvalidRequestError,
    1004: InvalidRequestError,
    1005: ConflictError,
    2001: AuthenticationError,
    2003: PermissionDeniedError,
    2005: NotFoundError,
    4001: RateLimitedError,
    4008: RequestTimeoutError,
    4002: QuotaExceededError,
    5001: ServerError,
    5002: ServiceBusyError,
}


def normalize_code(code: Any) -> Code:
    """The code as the contract writes it: numeric strings (a task's ``error.code``) become ints."""
    if isinstance(code, str) and code.isdigit():
        return int(code)
    if isinstance(code, (int, str)) and not isinstance(code, bool):
        return code
    return None


def error_class(status: int | None, code: Code) -> type[MediatransError]:
    """The exception class for an HTTP ``status`` (when answered) and contract ``code``."""
    if status == 403 and code == 2004:
        return QuotaExceededError  # voice group: custom voice slots full
    if status is not None:
        if status in _BY_STATUS:
            return _BY_STATUS[status]
        if status >= 500:
            return ServerError
        if 400 <= status < 500:
            return InvalidRequestError
    if isinstance(code, str):
        return _BY_STRING_CODE.get(code, InvalidRequestError)
    if isinstance(code, int):
        if code in _BY_NUMERIC_CODE:
            return _BY_NUMERIC_CODE[code]
        if 1000 <= code < 4000:
            return InvalidRequestError
    return MediatransError


def build_error(
    status: int | None,
    body: Any,
    request_id: str | None = None,
    retry_after: float | None = None,
    fallback_message: str = "",
) -> MediatransError:
    """The exception for an error response: its ``body`` (parsed JSON or anything else) and headers."""
    data = body if isinstance(body, dict) else {}
    code = normalize_code(data.get("code"))
    message = str(data.get("message") or fallback_message or f"HTTP {status}")
    rid = data.get("request_id") or request_id
    details = data.get("details") if isinstance(data.get("details"), list) else None
    cls = error_class(status, code)
    exc = cls(code, message, request_id=str(rid) if rid else None, status=status, details=details)
    if isinstance(exc, _RetryAfterMixin):
        exc.retry_after = retry_after
    return exc
