"""Routes that carry their own documentation (summary, schemas, errors).

The OpenAPI document is generated from these: the request/response pydantic
models and the error kinds each route can raise, resolved through the same
error table the exception handler uses.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel
from starlette.routing import Route

from serve_app.errors import ErrorKind


@dataclasses.dataclass(frozen=True)
class RouteDoc:
    summary: str
    description: str = ""
    auth: bool = True
    query: type[BaseModel] | None = None
    body: type[BaseModel] | None = None
    body_content_type: str = "application/json"
    response: type[BaseModel] | None = None
    status: int = 200
    errors: Sequence[ErrorKind] = ()
    tag: str = ""
    idempotent_create: bool = False


class ApiRoute(Route):
    def __init__(self, path: str, endpoint: Callable[..., Any], *, methods: list[str], doc: RouteDoc) -> None:
        super().__init__(path, endpoint, methods=methods)
        self.doc = doc


def api_route(path: str, method: str, doc: RouteDoc) -> Callable[[Callable[..., Any]], ApiRoute]:
    def decorate(endpoint: Callable[..., Any]) -> ApiRoute:
        return ApiRoute(path, endpoint, methods=[method], doc=doc)

    return decorate
