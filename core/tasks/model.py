"""The task record and its state machine (contract section 3.1).

States and the transitions this service allows::

    queued ──► processing ──► completed
       │           │  ▲
       │           │  └── (re-queued when its worker died or an engine was busy)
       │           └────► failed
       └───────────────► expired   (pending more than 48 h; also from processing)

A task has a ``kind`` (``video`` today): the job runner picks the handler by it,
so every asynchronous capability shares this record, the job stream and the
callback machinery.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from datetime import UTC, datetime
from typing import Any


class TaskState(str, enum.Enum):
    """Task states of the contract."""

    QUEUED = "queued"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    EXPIRED = "expired"

    @property
    def terminal(self) -> bool:
        return self in (TaskState.COMPLETED, TaskState.FAILED, TaskState.EXPIRED)


S = TaskState
TRANSITIONS: dict[TaskState, frozenset[TaskState]] = {
    S.QUEUED: frozenset({S.PROCESSING, S.FAILED, S.EXPIRED}),
    S.PROCESSING: frozenset({S.PROCESSING, S.QUEUED, S.COMPLETED, S.FAILED, S.EXPIRED}),
    S.COMPLETED: frozenset(),
    S.FAILED: frozenset(),
    S.EXPIRED: frozenset(),
}


class InvalidTransition(Exception):
    """A state change the lifecycle does not allow (e.g. completed → processing)."""


def iso(ts: float) -> str:
    """``2026-11-22T19:30:00Z`` for a Unix time."""
    return datetime.fromtimestamp(ts, tz=UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclasses.dataclass
class Task:
    """An asynchronous task as stored in Redis (one hash, each field JSON-encoded).

    Attributes:
        params: the job spec, as its pydantic model dumps it (see ``core.specs``).
        job_id: id of the job-stream message that carries the task.
        kind: which job handler runs it.
    """

    task_id: str
    account_id: str
    status: TaskState
    created_at: float
    params: dict[str, Any]
    kind: str = "video"
    request_id: str = ""
    progress: int = 0
    stage: str | None = None
    estimated_seconds: int | None = None
    completed_at: float | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    worker: str | None = None
    attempts: int = 0
    job_id: str | None = None

    def to_redis(self) -> dict[str, str]:
        data = dataclasses.asdict(self)
        data["status"] = self.status.value
        return {k: json.dumps(v) for k, v in data.items()}

    @classmethod
    def from_redis(cls, raw: dict[str, str]) -> Task:
        known = {f.name for f in dataclasses.fields(cls)}
        data = {k: json.loads(v) for k, v in raw.items() if k in known}
        data["status"] = TaskState(data["status"])
        return cls(**data)

    def public(self) -> dict[str, Any]:
        """The task record of contract section 2.1."""
        body: dict[str, Any] = {
            "task_id": self.task_id,
            "status": self.status.value,
            "progress": 100 if self.status is S.COMPLETED else self.progress,
            "created_at": iso(self.created_at),
        }
        revision = self.params.get("revision") if isinstance(self.params, dict) else None
        if isinstance(revision, dict):  # a revision of a video task (docs/video-revisions.md)
            body["parent_task_id"], body["revision"] = revision.get("parent_task_id"), revision.get("number")
        added = self.params.get("translation_of") if isinstance(self.params, dict) else None
        if isinstance(added, dict):  # an added language of a video task (docs/video-languages.md)
            body["parent_task_id"] = added.get("parent_task_id")
        if self.status in (S.QUEUED, S.PROCESSING) and self.estimated_seconds is not None:
            body["estimated_seconds"] = self.estimated_seconds
        if self.status is S.PROCESSING and self.stage:
            body["stage"] = self.stage
        if self.status is S.COMPLETED:
            body["result"] = self.result or {}
            if self.completed_at is not None:
                body["completed_at"] = iso(self.completed_at)
        if self.status in (S.FAILED, S.EXPIRED) and self.error:
            body["error"] = self.error
        return body


def apply_transition(task: Task, status: TaskState, fields: dict[str, Any], now: float) -> None:
    """Move ``task`` to ``status`` in place; ``progress`` never decreases."""
    if status not in TRANSITIONS[task.status]:
        raise InvalidTransition(f"task {task.task_id}: {task.status.value} → {status.value}")
    if "progress" in fields:
        fields["progress"] = max(task.progress, min(int(fields["progress"]), 100))
    for name, value in fields.items():
        setattr(task, name, value)
    task.status = status
    if status is S.COMPLETED:
        task.progress = 100
        task.stage = None
        task.completed_at = task.completed_at or now
