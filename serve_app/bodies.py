"""Reading JSON request bodies into pydantic models with contract errors."""

from __future__ import annotations

import json
from typing import Any, TypeVar

import pydantic
from starlette.requests import Request

from core.errors import ApiError, ErrorKind
from serve_app.responses import validation_error

M = TypeVar("M", bound=pydantic.BaseModel)


async def read_json(request: Request) -> Any:
    """The parsed JSON body; INVALID_PARAMETER when it is not JSON."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise ApiError(ErrorKind.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json.")
    body = await request.body()
    try:
        return json.loads(body)
    except RecursionError:
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Body is not valid JSON: nested too deeply.") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer over the digit limit
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"Body is not valid JSON: {_first_line(exc)}") from None


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


def parse_model(model: type[M], data: Any) -> M:
    if not isinstance(data, dict):
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Body must be a JSON object.")
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None
