"""Schemas of the video translation endpoints (contract 2.1, 4.1, 4.2)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


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


_HEX = r"^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$"


class VideoTranslateParams(BaseModel):
    """Form fields of ``POST /v1/video/translate`` (the file part is separate)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    target_lang: str = Field(min_length=1, max_length=16)
    source_lang: str | None = Field(None, max_length=16, description="Omitted or auto: detected.")
    video_url: str | None = Field(None, max_length=4096)
    output_format: Literal["srt", "vtt", "ass", "burned_video", "all"] = "srt"
    bilingual: bool = False
    engine: Literal["standard", "professional"] = "standard"
    callback_url: str | None = Field(None, max_length=4096)
    glossary_id: str | None = Field(None, max_length=64)
    subtitle_font: str = Field("PingFang SC", min_length=1, max_length=64, pattern=r"^[^,{}\\]+$")
    subtitle_size: int = Field(24, ge=8, le=120, description="Pixels; 18 to 36 recommended.")
    subtitle_color: str = Field("#FFFFFF", pattern=_HEX)
    subtitle_outline: str = Field("#000000", pattern=r"^$|" + _HEX[1:], description="Empty: no stroke.")
    subtitle_outline_width: float = Field(2.0, ge=1.0, le=4.0)
    subtitle_bg: str = Field("none", pattern=r"^none$|" + _HEX[1:])
    subtitle_position: Literal["bottom", "top", "middle"] = "bottom"
    enable_dubbing: bool = False
    dubbing_voice: Literal["default-female", "default-male", "professional-female", "professional-male"] = "default-female"
    dubbing_speed: float = Field(1.0, ge=0.5, le=2.0)
    dubbing_bg_music: float = Field(0.3, ge=0.0, le=1.0)
    enable_diarization: bool = False
    speaker_count: int | None = Field(None, ge=1, le=32, description="Omitted or auto: detected.")
    max_subtitle_length: int = Field(42, ge=10, le=120)
    subtitle_max_duration: float = Field(5.0, ge=2.0, le=10.0)
    profanity_filter: bool = False
    start_time: float = Field(0.0, ge=0.0, le=3 * 3600)
    end_time: float | None = Field(None, gt=0.0, le=3 * 3600)

    @model_validator(mode="before")
    @classmethod
    def _blank_is_default(cls, data: Any) -> Any:
        """Form clients send empty strings for unset fields; ``auto`` means detect."""
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if v != "" or k == "subtitle_outline"}
            for key in ("source_lang", "speaker_count"):
                if isinstance(data.get(key), str) and data[key].lower() == "auto":
                    data.pop(key)
        return data

    @model_validator(mode="after")
    def _range(self) -> VideoTranslateParams:
        if self.end_time is not None and self.end_time <= self.start_time:
            raise ValueError("end_time must be greater than start_time")
        return self


class SubmitResponse(BaseModel):
    task_id: str
    status: str
    created_at: str
    estimated_seconds: int
