"""Form fields of ``POST /v1/subtitles/translate`` (extension, docs/subtitle-translation.md).

Every field is the video submission's (:class:`core.specs.video.VideoOptions`: same type, default and limits)
that applies to subtitles; what needs a video (dubbing, diarization, the processed range, ``burned_video``)
is not taken.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from core.specs.steering import form_lists
from core.specs.video import VideoOptions

#: The submission's fields a subtitle file takes.
FIELDS = (
    "target_lang",
    "source_lang",
    "output_format",
    "bilingual",
    "engine",
    "callback_url",
    "glossary_id",
    "subtitle_font",
    "subtitle_size",
    "subtitle_color",
    "subtitle_outline",
    "subtitle_outline_width",
    "subtitle_bg",
    "subtitle_position",
    "max_subtitle_length",
    "subtitle_max_duration",
    "subtitle_preset",
    "profanity_filter",
    "context",
    "instructions",
    "glossary_ids",
    "memory_id",
)

_Fields: type[BaseModel] = create_model(  # type: ignore[call-overload]
    "SubtitleFields",
    __config__=ConfigDict(extra="forbid", str_strip_whitespace=True),
    **{name: (VideoOptions.model_fields[name].annotation, VideoOptions.model_fields[name]) for name in FIELDS},
)


class SubtitleTranslateParams(_Fields):  # type: ignore[misc,valid-type]
    """The form fields; the file part (``file``) is separate."""

    additional_target_langs: str | None = Field(
        None, max_length=300, description="More target languages, comma-separated (at most 10): a task each."
    )

    @model_validator(mode="before")
    @classmethod
    def _blank_is_default(cls, data: Any) -> Any:
        """Form clients send empty strings for unset fields; ``auto`` means detect."""
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if v != "" or k == "subtitle_outline"}
            if isinstance(data.get("source_lang"), str) and data["source_lang"].lower() == "auto":
                data.pop("source_lang")
        return form_lists(data)

    @field_validator("output_format")
    @classmethod
    def _no_video(cls, value: str) -> str:
        if value == "burned_video":
            raise ValueError("burned_video needs a video; a subtitle file is translated into subtitle files")
        return value

    def options(self) -> dict[str, Any]:
        """The values as video options (``all``: every subtitle format)."""
        return {name: getattr(self, name) for name in FIELDS}
