"""Reporting task progress to a callback only when something a user would see changes."""

from __future__ import annotations

from collections.abc import Callable

from mediatrans_client.errors import TaskFailedError, normalize_code
from mediatrans_client.models import Task

ProgressCallback = Callable[[Task], None]


class ProgressReporter:
    """Calls ``callback(task)`` when status, stage or progress changes; progress never goes backwards.

    A record whose ``progress`` is below one already reported (a stale replica answer)
    is not reported; a final status always is.
    """

    def __init__(self, callback: ProgressCallback | None) -> None:
        self._callback = callback
        self._last: tuple[str, str | None, int] | None = None

    def observe(self, task: Task) -> None:
        if self._callback is None:
            return
        progress = task.progress or 0
        if self._last is not None:
            last_progress = self._last[2]
            if not task.is_final and progress < last_progress:
                return
            if (task.status, task.stage, progress) == self._last:
                return
        self._last = (task.status, task.stage, progress)
        self._callback(task)


def task_failure(task: Task) -> TaskFailedError:
    """The error for a task that ended ``failed`` or ``expired``, carrying its ``error`` code and the task."""
    error = task.error if isinstance(task.error, dict) else {}
    code = error.get("code") or ("TASK_EXPIRED" if task.status == "expired" else "TASK_FAILED")
    message = str(error.get("message") or f"Task {task.task_id} ended {task.status}.")
    exc = TaskFailedError(normalize_code(code), f"Task {task.task_id} {task.status}: {message}")
    exc.task = task
    return exc
