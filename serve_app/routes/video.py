"""Video translation task endpoints."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

from serve_app.auth import authenticate, require_owner, services_of
from serve_app.errors import ApiError, ErrorKind
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.video import TaskRecord

GET_DOC = RouteDoc(
    summary="Read a video translation task",
    description="Another account's task answers 404 TASK_NOT_FOUND, exactly like a missing one.",
    response=TaskRecord,
    errors=(ErrorKind.NOT_FOUND, ErrorKind.RATE_LIMITED),
    tag="video",
)


@api_route("/v1/video/task/{task_id}", "GET", GET_DOC)
async def get_task(request: Request) -> JSONResponse:
    account = await authenticate(request)
    task = await services_of(request).tasks.get(request.path_params["task_id"])
    if task is None:
        raise ApiError(ErrorKind.NOT_FOUND, "No such task.")
    require_owner(account, task.account_id, "task", hide=True)
    return JSONResponse(task.public())


ROUTES = [get_task]
