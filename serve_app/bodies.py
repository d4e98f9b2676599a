"""Reading JSON request bodies into pydantic models with contract errors.

Messages are the service's own sentences: a codec's or the interpreter's wording
(``'utf-8' codec can't decode…``, ``sys.set_int_max_str_digits()``) never reaches a client.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import pydantic
from starlette.requests import Request

from core.errors import ApiError, ErrorKind
from serve_app.responses import validation_error

M = TypeVar("M", bound=pydantic.BaseModel)

NOT_UTF8 = "The body is not valid UTF-8."
TOO_DEEP = "The body is not valid JSON: it is nested too deeply."
TOO_MANY_DIGITS = "The body is not valid JSON: a number has too many digits."


async def read_json(request: Request) -> Any:
    """The parsed JSON body; INVALID_PARAMETER when it is not JSON."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise ApiError(ErrorKind.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json.")
    body = await request.body()
    try:
        return json.loads(body)
    except RecursionError:
        raise ApiError(ErrorKind.INVALID_PARAMETER, TOO_DEEP) from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer over the digit limit
        raise ApiError(ErrorKind.INVALID_PARAMETER, not_json_message(exc)) from None


def not_json_message(exc: ValueError) -> str:
    """Why ``json.loads`` refused a body, in the service's words (the position, never the library's text)."""
    if isinstance(exc, UnicodeError):
        return NOT_UTF8
    if isinstance(exc, json.JSONDecodeError):
        return f"The body is not valid JSON (line {exc.lineno}, column {exc.colno})."
    if "digits" in str(exc):  # int(): "Exceeds the limit (4300 digits) for integer string conversion…"
        return TOO_MANY_DIGITS
    return "The body is not valid JSON."


def parse_model(model: type[M], data: Any) -> M:
    if not isinstance(data, dict):
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Body must be a JSON object.")
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None
