"""``POST /v1/video/task/{task_id}/translations``: another language for a completed video task (docs/video-languages.md).

The new task translates the parent's stored transcript (its source segments, times and speakers, as they
are) into ``target_lang`` and renders it: nothing is extracted, recognized or diarized. It takes every
output choice of a submission. An omitted choice is the parent's, except three that belong to a language
or to a request: the glossaries (a glossary is for one language pair: none unless given), the callback (the
new task's own) and the layout limits ``max_subtitle_length`` / ``subtitle_max_duration`` (the new
language's preset unless given). Recognition choices (source language, diarization, range) are the parent's.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from core.specs.languages import LanguageCode
from core.specs.revision import REVISABLE, optional_field
from core.specs.translation_of import TranslationOf
from core.specs.video import LAYOUT_FIELDS, GlossarySnapshot, VideoJobSpec

#: Choices an added language may set besides ``target_lang``; the others are the parent's.
CHOICES = (*REVISABLE, "engine", "glossary_id", "profanity_filter", "context", "instructions", "glossary_ids", "memory_id")
#: Choices that are never the parent's: omitted means the submission's default.
NOT_INHERITED = ("callback_url", "glossary_id", "glossary_ids", "dependents", *LAYOUT_FIELDS)

_AddLanguageOptions: type[BaseModel] = create_model(  # type: ignore[call-overload]
    "AddLanguageOptions",
    __config__=ConfigDict(extra="forbid", str_strip_whitespace=True),
    **{name: optional_field(name) for name in CHOICES},
)


class AddLanguageRequest(_AddLanguageOptions):  # type: ignore[misc,valid-type]
    """The JSON body: the new target language and the output choices that differ from the parent's."""

    target_lang: LanguageCode = Field(description="The language to add (see /v1/languages).")

    def choices(self) -> dict[str, Any]:
        """The output choices given (None: omitted)."""
        return {name: getattr(self, name) for name in CHOICES if getattr(self, name) is not None}


def added_language_spec(
    parent: VideoJobSpec, request: AddLanguageRequest, target: str, glossary: GlossarySnapshot | None, origin: TranslationOf
) -> VideoJobSpec:
    """The new task's spec: the parent's, in ``target`` (canonical), with the choices given.

    Raises pydantic's ValidationError when the combination is invalid.
    """
    choices = {name: value for name, value in request.choices().items() if name not in ("glossary_id", "glossary_ids")}
    inherited = {name: value for name, value in parent.stored().items() if name not in NOT_INHERITED}
    data = {
        **inherited,
        **choices,
        "target_lang": target,
        "glossary": glossary,
        "explicit_layout": sorted(name for name in LAYOUT_FIELDS if name in choices),
        "revision": None,
        "translation_of": origin,
    }
    return VideoJobSpec.model_validate(data)
