"""``POST /v1/video/task/{task_id}/revise``: the edits and the output choices a revision may change.

A revision renders the parent's stored transcript again (core/specs/transcript.py). What it may change
besides the segments are the output choices: format, bilingual layout, subtitle style and line limits,
dubbing and its voice, and the callback. Recognition choices (languages, engine, glossary, diarization,
range) are the parent's: changing them means recognizing again, which a new submission does.
Each choice has the submission's type, default and limits (:class:`core.specs.video.VideoOptions`);
an omitted one is the parent's.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

from core.specs.revision_of import RevisionOf
from core.specs.transcript import MAX_EDITS, SegmentEdit
from core.specs.video import LAYOUT_FIELDS, VideoJobSpec, VideoOptions

__all__ = ["REVISABLE", "ReviseRequest", "RevisionOf", "optional_field", "revision_spec"]

#: Submission fields a revision may set; the others stay the parent's.
REVISABLE = (
    "output_format",
    "bilingual",
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
    "enable_dubbing",
    "dubbing_voice",
    "dubbing_speed",
    "dubbing_bg_music",
    "callback_url",
)


def optional_field(name: str) -> tuple[Any, FieldInfo]:
    """A submission field as an optional one: omitted (None) means the parent task's value."""
    info = VideoOptions.model_fields[name]
    described = info.description or ""
    optional = FieldInfo.merge_field_infos(  # type: ignore[operator]
        info, default=None, description=f"{described} Omitted: the parent task's.".strip()
    )
    optional.default_factory = None  # a list field's factory would win over the None that means "omitted"
    return info.annotation | None, optional  # type: ignore[return-value,operator]


_ReviseOptions: type[BaseModel] = create_model(  # type: ignore[call-overload]
    "ReviseOptions",
    __config__=ConfigDict(extra="forbid", str_strip_whitespace=True),
    **{name: optional_field(name) for name in REVISABLE},
)


class ReviseRequest(_ReviseOptions):  # type: ignore[misc,valid-type]
    """The JSON body of a revision: edits to the parent's segments and output choices that differ."""

    segments: list[SegmentEdit] = Field(min_length=1, max_length=MAX_EDITS, description="Edits, one per segment.")
    memory_id: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9_-]{1,64}$",
        description="Extension: the translation memory that learns this revision's translation edits (and steers its "
        "translations). Omitted: the parent task's memory, if it had one (docs/memories.md).",
    )

    def choices(self) -> dict[str, Any]:
        """The output choices given (None: omitted)."""
        return {name: getattr(self, name) for name in REVISABLE if getattr(self, name) is not None}


def revision_spec(parent: VideoJobSpec, request: ReviseRequest, revision: RevisionOf) -> VideoJobSpec:
    """The revision task's spec: the parent's, with the output choices given and the revision.

    The callback is the revision's own (a parent's callback is not called again for its revisions).
    Raises pydantic's ValidationError when the combination is invalid.
    """
    choices = request.choices()
    explicit = sorted(set(parent.explicit_layout) | {name for name in LAYOUT_FIELDS if name in choices})
    data = {
        **parent.stored(),
        "callback_url": None,
        **choices,
        "explicit_layout": explicit,
        "revision": revision,
    }
    if request.memory_id is not None:
        data["memory_id"] = request.memory_id
    return VideoJobSpec.model_validate(data)
