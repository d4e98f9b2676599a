"""Reading JSON request bodies into pydantic models with contract errors."""

from __future__ import annotations

import json
from typing import Any, TypeVar

import pydantic
from starlette.requests import Request

from serve_app.errors import ApiError, ErrorKind
from serve_app.responses import validation_error

M = TypeVar("M", bound=pydantic.BaseModel)


async def read_json(request: Request) -> Any:
    """The parsed JSON body; INVALID_PARAMETER when it is not JSON."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise ApiError(ErrorKind.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json.")
    try:
        return json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"Body is not valid JSON: {exc}") from None


def parse_model(model: type[M], data: Any) -> M:
    if not isinstance(data, dict):
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Body must be a JSON object.")
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None
