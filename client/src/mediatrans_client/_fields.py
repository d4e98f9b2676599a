"""The request fields of each endpoint, and the body built from a method's keyword arguments."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from mediatrans_client.models import SegmentEdit

#: Extension fields that steer a translation (docs: "Steering a translation"): a context that is not translated,
#: instructions, several glossaries, and a translation memory. Video and subtitle forms send ``instructions`` once
#: per instruction and ``glossary_ids`` comma-joined; JSON bodies send both as lists.
STEERING_FIELDS = ("context", "instructions", "glossary_ids", "memory_id")

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
    *STEERING_FIELDS,
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
    *STEERING_FIELDS,
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
ADD_LANGUAGE_FIELDS = ("target_lang", *REVISE_FIELDS, "engine", "glossary_id", "profanity_filter", *STEERING_FIELDS)
#: The body of a revision besides its ``segments``: the output choices, and the memory a ``translation`` edit is added to.
REVISION_FIELDS = (*REVISE_FIELDS, "memory_id")
VOICE_CLONE_FIELDS = ("voice_name", "lang", "description", "enhance_quality", "noise_reduction", "gender", "callback_url")
TTS_FIELDS = ("text", "voice", "lang", "gender", "emotion", "emotion_intensity", "speed", "output_format")
GRAMMAR_FIELDS = ("text", "lang", "auto_correct", "check_types", "severity", "disable_rules", "domain")
GAME_FIELDS = (
    "text",
    "content_type",
    "source_lang",
    "target_langs",
    "genre",
    "max_length",
    "tone",
    "glossary_id",
    *STEERING_FIELDS,
)


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


#: Translation-memory pairs as the memory methods take them: ``(source, target)`` tuples, dicts with ``source`` and
#: ``target`` (other keys are sent as given), :class:`~mediatrans_client.models.MemoryEntry` records, or one mapping
#: ``{source: target}``.
MemoryPairs = Iterable[tuple[str, str] | Sequence[str] | Mapping[str, Any] | BaseModel] | Mapping[str, str]


def memory_entries(entries: MemoryPairs) -> list[dict[str, Any]]:
    """The ``entries`` of a memory request: ``[{"source": ..., "target": ...}, ...]`` in the order given.

    Raises ``ValueError`` for an item that is not a pair (or a dict without ``source`` and ``target``).
    """
    if isinstance(entries, Mapping):
        return [{"source": source, "target": target} for source, target in entries.items()]
    out: list[dict[str, Any]] = []
    for position, item in enumerate(entries, 1):
        if isinstance(item, BaseModel):
            item = item.model_dump(mode="json", exclude_none=True)
        if isinstance(item, Mapping):
            if "source" not in item or "target" not in item:
                raise ValueError(f"memory entry {position}: needs 'source' and 'target'")
            out.append(dict(item))
        elif isinstance(item, Sequence) and not isinstance(item, (str, bytes)) and len(item) == 2:
            out.append({"source": item[0], "target": item[1]})
        else:
            raise ValueError(f"memory entry {position}: expected a (source, target) pair or a dict, got {item!r}")
    return out
