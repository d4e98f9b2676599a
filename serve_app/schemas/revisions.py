"""Schemas of the revision endpoints (extension, docs/video-revisions.md)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class TranscriptSegment(BaseModel):
    id: str = Field(description="Stable id (s1, s2, … in time order), the same in every revision.")
    start: float
    end: float
    speaker: str | None = Field(None, description="Speaker name; diarized tasks only.")
    source: str = Field(description="Recognized text of the sentence.")
    translation: str
    dubbing: dict[str, Any] | None = Field(
        None, description="Dubbed tasks: where the line was placed (start, end), its tempo, method and whether it was re-asked."
    )


class TranscriptBody(BaseModel):
    task_id: str
    parent_task_id: str | None = None
    revision: int = Field(description="0 for a task that recognized the video or an added language, n for its n-th revision.")
    source_lang: str
    target_lang: str
    duration: float
    speakers: list[str] | None = Field(None, description="Diarized tasks: the speakers' names.")
    segments: list[TranscriptSegment]


class AddLanguageResponse(BaseModel):
    """The answer to ``POST /v1/video/task/{id}/translations``: a submission's, and the parent task."""

    task_id: str
    status: str
    created_at: str
    estimated_seconds: int
    parent_task_id: str
    target_lang: str


class ReviseResponse(BaseModel):
    task_id: str
    status: str
    created_at: str
    estimated_seconds: int
    parent_task_id: str
    revision: int
    memory_learned: int | None = Field(
        None,
        description="Extension: with a memory (memory_id, or the parent task's), the translation edits added to it "
        "(docs/memories.md).",
    )
