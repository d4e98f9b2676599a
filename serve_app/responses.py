"""Turning any failure into the one JSON error body (the table is ``core.errors``)."""

from __future__ import annotations

import logging
from typing import Any

import pydantic
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from core.boundary import REPLICA_GONE, log_remote, public_message, unwrap
from core.context import request_id_var
from core.errors import ApiError, ErrorGroup, ErrorKind, client_message, error_body, group_for_path, kind_of, resolve
from core.redis import UNREACHABLE
from engines import errors as engine_errors

log = logging.getLogger("mediatrans.errors")

try:  # a capability deployment refused work because its queue is full
    from ray.serve.exceptions import BackPressureError
except ImportError:  # pragma: no cover - ray is a hard dependency
    BackPressureError = RuntimeError  # type: ignore[misc,assignment]

RETRY_AFTER_BUSY = "5"

#: The video group's answer to a body over its cap that cannot carry a video (a JSON body): the
#: contract's ``400 VIDEO_TOO_LARGE`` is about a video, not about a revision's or a video_url's JSON.
VIDEO_GROUP_BODY_TOO_LARGE = (413, "PAYLOAD_TOO_LARGE")


class BodyTooLarge(ApiError):
    """A request body over its route's cap (``serve_app.middleware.BodyLimitMiddleware``).

    ``upload``: the body may carry a video, so the video group answers ``VIDEO_TOO_LARGE``; any other
    body is answered like a JSON endpoint's, ``413`` in every group.
    """

    def __init__(self, limit_text: str, *, upload: bool) -> None:
        super().__init__(ErrorKind.PAYLOAD_TOO_LARGE, f"Request body exceeds the limit of {limit_text}.")
        self.upload = upload


#: Exception classes answered inside the app (the rest reach the server-error handler).
HANDLED: tuple[type[BaseException], ...] = (ApiError, pydantic.ValidationError, engine_errors.EngineError, BackPressureError)


def render(path: str, error: ApiError) -> JSONResponse:
    """The response for ``error`` raised while serving ``path``."""
    group = group_for_path(path)
    status, code = resolve(group, error.kind)
    if isinstance(error, BodyTooLarge) and not error.upload and group is ErrorGroup.VIDEO:
        status, code = VIDEO_GROUP_BODY_TOO_LARGE
    request_id = request_id_var.get()
    headers = dict(error.headers)  # X-Request-ID is added once, by RequestContextMiddleware
    if status in (429, 503) and "Retry-After" not in headers:
        headers["Retry-After"] = RETRY_AFTER_BUSY
    return JSONResponse(error_body(code, error.message, request_id, error.details), status_code=status, headers=headers)


def to_api_error(exc: BaseException) -> ApiError:
    """Map any exception to an ApiError, most specific first.

    Exceptions re-raised by a deployment handle are unwrapped first: the client
    gets the original's one-line message, the log gets Ray's remote traceback.
    """
    original = unwrap(exc)
    log_remote(exc, original)
    exc = original
    if isinstance(exc, ApiError):
        if public_message(exc.message, "") != exc.message:
            return ApiError(exc.kind, client_message(exc, exc.kind), details=exc.details, headers=exc.headers)
        return exc
    if isinstance(exc, HTTPException):
        return _from_http(exc)
    if isinstance(exc, pydantic.ValidationError):
        return validation_error(exc)
    if isinstance(exc, RecursionError):  # nesting deeper than any parser or model here takes
        return ApiError(ErrorKind.INVALID_PARAMETER, "The request is nested too deeply.")
    kind = kind_of(exc)
    if kind is ErrorKind.UNAVAILABLE or isinstance(exc, (BackPressureError, *UNREACHABLE, *REPLICA_GONE)):
        log.warning("answered busy for %s: %.300s", type(exc).__name__, exc)
        return ApiError(ErrorKind.UNAVAILABLE, "Service busy; retry shortly.", headers={"Retry-After": RETRY_AFTER_BUSY})
    if kind is not None:
        return ApiError(kind, client_message(exc, kind))
    log.error("unhandled %s: %s", type(exc).__name__, exc, exc_info=exc)
    return ApiError(ErrorKind.INTERNAL, "Internal error; the request can be retried.")


def _from_http(exc: HTTPException) -> ApiError:
    headers = dict(exc.headers or {})
    if exc.status_code == 404:
        return ApiError(ErrorKind.ROUTE_NOT_FOUND, "No such endpoint.")
    if exc.status_code == 405:
        allowed = headers.get("Allow", "")
        return ApiError(ErrorKind.METHOD_NOT_ALLOWED, f"Method not allowed; allowed: {allowed}.", headers=headers)
    return ApiError(ErrorKind.INVALID_PARAMETER, public_message(str(exc.detail), "Invalid request."))


def validation_error(exc: pydantic.ValidationError, kind: ErrorKind = ErrorKind.INVALID_PARAMETER) -> ApiError:
    details = [{"field": ".".join(str(p) for p in err["loc"]) or "body", "message": _message(err)} for err in exc.errors()]
    summary = "; ".join(f"{d['field']}: {d['message']}" for d in details[:3])
    return ApiError(kind, f"Invalid parameter: {summary}", details=details)


def _message(err: Any) -> str:
    """pydantic's message for one field, unless it carries a codec's or the interpreter's wording
    (a validator's ``bytes.decode()`` or ``int()`` failing): those are said in the service's words."""
    error = (err.get("ctx") or {}).get("error")
    if isinstance(error, UnicodeError) or "codec can't" in err["msg"]:
        return "Value is not valid UTF-8 text."
    if "set_int_max_str_digits" in err["msg"] or "integer string conversion" in err["msg"]:
        return "Value is a number with too many digits."
    return str(err["msg"])


async def handle_exception(request: Request, exc: Exception) -> JSONResponse:
    """The single exception handler registered for every exception class."""
    return render(request.url.path, to_api_error(exc))


def json_error(path: str, kind: ErrorKind, message: str, **kwargs: Any) -> JSONResponse:
    return render(path, ApiError(kind, message, **kwargs))
