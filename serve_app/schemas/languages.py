"""Schemas of ``GET /v1/languages``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.specs.languages import LanguageCode


class LanguagesQuery(BaseModel):
    """Query parameters; unknown parameters are ignored (cache busters)."""

    model_config = ConfigDict(extra="ignore")

    type: Literal["translation", "speech", "ocr"] = Field("translation", description="Which support the list is about.")
    capability: Literal["formality", "glossary", "document"] | None = Field(
        None, description="Keep languages with this capability."
    )
    source: LanguageCode | None = Field(None, description="Languages this language can be translated into.")
    target: LanguageCode | None = Field(None, description="Languages that can be translated into this one.")


class PairRoute(BaseModel):
    engine: str = Field(description="The engine that translates the pair first (a pivot route reads `llm>sv>apertium`).")
    chrf: float | None = Field(description="Its chrF on the project's development set (docs/translation-scores.md).")


class LanguageRecord(BaseModel):
    code: str = Field(description="ISO 639-1 two-letter lowercase code")
    name: str = Field(description="Name in the language's own script")
    name_en: str
    supports_formality: bool
    supports_glossary: bool
    supports_speech: bool
    supports_ocr: bool
    supports_document: bool
    variants: list[str] | None = Field(None, description="Regional variants usable as targets (extension).")
    route: PairRoute | None = Field(
        None, description="With `source` or `target`: how that pair is translated and its measured quality (extension)."
    )


class LanguageList(BaseModel):
    languages: list[LanguageRecord]
    total: int
