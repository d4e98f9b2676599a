"""Schemas of the video translation endpoints (contract 2.1, 4.1, 4.2)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class TaskError(BaseModel):
    code: str = Field(description="A video error code, e.g. NO_AUDIO_TRACK, INTERNAL_ERROR, TASK_EXPIRED")
    message: str


class TaskRecord(BaseModel):
    task_id: str
    status: str = Field(description="queued, processing, completed, failed or expired")
    progress: int
    stage: str | None = None
    estimated_seconds: int | None = None
    created_at: str
    completed_at: str | None = None
    result: dict[str, Any] | None = None
    error: TaskError | None = None
