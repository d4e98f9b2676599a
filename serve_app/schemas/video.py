"""Schemas of the video translation endpoints (contract 2.1, 4.1, 4.2)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

from core.specs.steering import form_lists
from core.specs.video import VideoOptions


class TaskError(BaseModel):
    code: str = Field(description="A video error code, e.g. NO_AUDIO_TRACK, INTERNAL_ERROR, TASK_EXPIRED")
    message: str


class AdditionalTask(BaseModel):
    """A task of ``additional_target_langs``: its language and id."""

    target_lang: str
    task_id: str


class TaskRecord(BaseModel):
    """The body of ``GET /v1/video/task/{id}``: a field that does not apply to the task is left out (never null).

    Fields are in the order the record sends them (``core.tasks.Task.public``).
    """

    task_id: str
    status: str = Field(description="queued, processing, completed, failed or expired")
    progress: int
    created_at: str
    parent_task_id: str | None = Field(None, description="A revision's or an added language's parent task (extension).")
    revision: int | None = Field(None, description="A revision's number in its chain, 1 for the first (extension).")
    estimated_seconds: int | None = None
    additional_tasks: list[AdditionalTask] | None = Field(
        None, description="Extension: the tasks of additional_target_langs, in the submission's answer (not in later reads)."
    )
    stage: str | None = None
    result: dict[str, Any] | None = None
    completed_at: str | None = None
    error: TaskError | None = None


class VideoTranslateParams(VideoOptions):
    """Form fields of ``POST /v1/video/translate`` (the file part is separate).

    Every parameter, default and limit comes from :class:`core.specs.video.VideoOptions`;
    only ``video_url`` and the form conventions are added here.
    """

    video_url: str | None = Field(None, max_length=4096, description="Exactly one of video_url and file.")
    additional_target_langs: str | None = Field(
        None,
        max_length=300,
        description="Extension: more target languages, comma-separated (at most 10). Each becomes a task of its own "
        "(`additional_tasks` in the answer) that translates this video's recognition: it is recognized once.",
    )

    @model_validator(mode="before")
    @classmethod
    def _blank_is_default(cls, data: Any) -> Any:
        """Form clients send empty strings for unset fields; ``auto`` means detect."""
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if v != "" or k == "subtitle_outline"}
            for key in ("source_lang", "speaker_count"):
                if isinstance(data.get(key), str) and data[key].lower() == "auto":
                    data.pop(key)
        return form_lists(data)


class SubmitResponse(BaseModel):
    task_id: str
    status: str
    created_at: str
    estimated_seconds: int
    additional_tasks: list[AdditionalTask] | None = Field(
        None, description="Extension: with additional_target_langs, one task per extra language, in the order given."
    )
