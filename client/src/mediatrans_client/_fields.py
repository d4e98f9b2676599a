"""The request fields of each endpoint, and the body built from a method's keyword arguments."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mediatrans_client.models import SegmentEdit

#: Field names of each request body, in contract order; the endpoint groups take each as a keyword
#: argument of the same name (the sample and video file travel as their own argument).
VIDEO_FIELDS = (
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
    "enable_dubbing",
    "dubbing_voice",
    "dubbing_speed",
    "dubbing_bg_music",
    "enable_diarization",
    "speaker_count",
    "max_subtitle_length",
    "subtitle_max_duration",
    "subtitle_preset",
    "profanity_filter",
    "start_time",
    "end_time",
    "additional_target_langs",  # extension: more target languages, a task each
)
#: The fields of a subtitle file's translation (``POST /v1/subtitles/translate``): the submission's that need no video.
SUBTITLE_FIELDS = (
    "target_lang",
    "source_lang",
    "additional_target_langs",
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
)
#: The output choices a revision may change (``POST /v1/video/task/{id}/revise``); the others stay the parent's.
REVISE_FIELDS = (
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
#: The fields of an added language (``POST /v1/video/task/{id}/translations``): the target, and every output choice of
#: a submission; an omitted one is the parent's, except ``glossary_id``, ``callback_url`` and the layout limits.
ADD_LANGUAGE_FIELDS = ("target_lang", *REVISE_FIELDS, "engine", "glossary_id", "profanity_filter")
VOICE_CLONE_FIELDS = ("voice_name", "lang", "description", "enhance_quality", "noise_reduction", "gender", "callback_url")
TTS_FIELDS = ("text", "voice", "lang", "gender", "emotion", "emotion_intensity", "speed", "output_format")
GRAMMAR_FIELDS = ("text", "lang", "auto_correct", "check_types", "severity", "disable_rules", "domain")
GAME_FIELDS = ("text", "content_type", "source_lang", "target_langs", "genre", "max_length", "tone", "glossary_id")


def request_fields(arguments: Mapping[str, Any], names: tuple[str, ...], extra: Mapping[str, Any] | None) -> dict[str, Any]:
    """The body fields among a method's ``arguments`` (its ``locals()``), then ``extra`` over them; ``None`` left out.

    Sequences (``target_langs``, ``check_types``...) are sent as lists.
    """
    merged = {name: arguments[name] for name in names}
    merged.update(extra or {})
    return {name: list(value) if isinstance(value, tuple) else value for name, value in merged.items() if value is not None}


def segment_edits(edits: Iterable[SegmentEdit | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``segments`` of a revision: each edit (a :class:`SegmentEdit` or a dict) as JSON, ``None`` fields left out.

    Raises pydantic's ``ValidationError`` (a ``ValueError``) for an edit without an ``id`` or with a mistyped field.
    """
    records = (edit if isinstance(edit, SegmentEdit) else SegmentEdit.model_validate(edit) for edit in edits)
    return [record.model_dump(mode="json", exclude_none=True) for record in records]
