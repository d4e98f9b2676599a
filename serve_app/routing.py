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
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from core.errors import ErrorKind


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
    #: multipart bodies: file parts (binary) besides the model's text fields
    form_files: Sequence[str] = ()
    #: fields of which a request must give exactly one
    exactly_one_of: Sequence[str] = ()


class ApiRoute(Route):
    """One operation: a method on a path, its endpoint and its documentation."""

    def __init__(self, path: str, endpoint: Callable[..., Any], *, methods: list[str], doc: RouteDoc) -> None:
        super().__init__(path, endpoint, methods=methods)
        self.doc = doc


class ApiResource(Route):
    """Every operation on one path, served by one route.

    Starlette answers a wrong method with the ``Allow`` of the first route whose
    path matched; with one route per path that header lists every method the
    resource supports, as the API document does.
    """

    def __init__(self, path: str, operations: Sequence[ApiRoute]) -> None:
        self.operations = {method: op for op in operations for method in (op.methods or ())}
        super().__init__(path, self._dispatch, methods=sorted(self.operations))

    async def _dispatch(self, request: Request) -> Response:
        response: Response = await self.operations[request.method].endpoint(request)
        return response


def api_route(path: str, method: str, doc: RouteDoc) -> Callable[[Callable[..., Any]], ApiRoute]:
    def decorate(endpoint: Callable[..., Any]) -> ApiRoute:
        return ApiRoute(path, endpoint, methods=[method], doc=doc)

    return decorate


def resources(routes: Sequence[BaseRoute]) -> list[BaseRoute]:
    """``routes`` with the operations of each path joined into one :class:`ApiResource`."""
    by_path: dict[str, list[ApiRoute]] = {}
    for route in routes:
        if isinstance(route, ApiRoute):
            by_path.setdefault(route.path, []).append(route)
    joined: list[BaseRoute] = []
    for route in routes:
        if not isinstance(route, ApiRoute):
            joined.append(route)
        elif route is by_path[route.path][0]:
            joined.append(ApiResource(route.path, by_path[route.path]))
    return joined
