"""The caller's task of a ``/v1/video/task/{task_id}…`` path: shared by the video and revision endpoints."""

from __future__ import annotations

import re

from starlette.requests import Request

from core import keys
from core.accounts import Account
from core.errors import ApiError, ErrorKind
from core.tasks import Task
from serve_app.auth import authenticate_and_read, require_owner, services_of

TASK_ID = re.compile(r"[0-9a-f]{32}")


async def owned_task(request: Request, kind: str | None = None) -> tuple[Account, Task]:
    """The caller and the task of the path's ``task_id``; NOT_FOUND when missing, another account's, or not ``kind``."""
    task_id = request.path_params["task_id"]
    # Only a well-formed id becomes a key (it is read inside the authentication script).
    reads = [keys.task(task_id)] if TASK_ID.fullmatch(task_id) else []
    account, values = await authenticate_and_read(request, reads)
    task = await services_of(request).tasks.load(values[0]) if values and values[0] else None
    if task is None or (kind is not None and task.kind != kind):
        raise ApiError(ErrorKind.NOT_FOUND, "No such task.")
    require_owner(account, task.account_id, "task", hide=True)
    return account, task
