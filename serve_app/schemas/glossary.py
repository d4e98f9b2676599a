"""Schemas of the glossary endpoints (the contract shows only ``glossary_id``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core import caps
from core.specs.languages import LanguageCode
from core.tasks import iso
from serve_app.schemas.text_fields import free_text, single_line

#: What one request may carry; the account's ``glossary_entries`` cap may be lower (core.caps).
MAX_ENTRIES = caps.CEILINGS[caps.GLOSSARY_ENTRIES]
MAX_TERM = 200


#: Glossaries arrive as JSON: a boolean must be a boolean (no `"no"` or `0` for case_sensitive).
_JSON_BODY = ConfigDict(extra="forbid", strict=True)


class GlossaryEntry(BaseModel):
    model_config = _JSON_BODY

    source: str = Field(min_length=1, max_length=MAX_TERM, description="Term in the source language.")
    target: str = Field(min_length=1, max_length=MAX_TERM, description="Exact term to use in the translation.")

    @field_validator("source", "target")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("must not be blank")
        return value


def _check_unique(entries: list[GlossaryEntry] | None, case_sensitive: bool) -> None:
    if not entries:
        return
    seen: set[str] = set()
    for entry in entries:
        key = entry.source if case_sensitive else entry.source.casefold()
        if key in seen:
            raise ValueError(f"duplicate source term {entry.source!r}")
        seen.add(key)


class GlossaryCreate(BaseModel):
    model_config = _JSON_BODY

    name: str = Field(min_length=1, max_length=64, description="Unique within the account.")
    source_lang: LanguageCode = Field(description="Concrete source code; never auto. A variant maps to its primary.")
    target_lang: LanguageCode = Field(description="Target code; regional variants allowed.")
    entries: list[GlossaryEntry] = Field(default_factory=list, max_length=MAX_ENTRIES)
    case_sensitive: bool = Field(False, description="Match source terms with exact case.")
    description: str | None = Field(None, max_length=200)

    _name = field_validator("name")(single_line)
    _description = field_validator("description")(free_text)

    @model_validator(mode="after")
    def _unique_terms(self) -> GlossaryCreate:
        _check_unique(self.entries, self.case_sensitive)
        return self


def _omit_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


class GlossaryUpdate(BaseModel):
    """Replace any of these fields (an omitted one is kept); languages are fixed at creation.

    Only ``description`` may be set to null (removed); the other fields are omitted, never null.
    """

    model_config = _JSON_BODY

    name: str = Field(None, min_length=1, max_length=64, json_schema_extra=_omit_default)  # type: ignore[assignment,arg-type]
    entries: list[GlossaryEntry] = Field(None, max_length=MAX_ENTRIES, json_schema_extra=_omit_default)  # type: ignore[assignment,arg-type]
    case_sensitive: bool = Field(None, json_schema_extra=_omit_default)  # type: ignore[assignment]
    description: str | None = Field(None, max_length=200)

    _name = field_validator("name")(single_line)
    _description = field_validator("description")(free_text)


class GlossaryRecord(BaseModel):
    glossary_id: str
    name: str
    source_lang: str
    target_lang: str
    case_sensitive: bool
    description: str | None = None
    entries: list[GlossaryEntry]
    entry_count: int
    created_at: str
    updated_at: str


class GlossarySummary(BaseModel):
    glossary_id: str
    name: str
    source_lang: str
    target_lang: str
    entry_count: int
    created_at: str
    updated_at: str


class GlossaryListQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: int = Field(100, ge=1, le=100, description="Glossaries per page.")
    cursor: str | None = Field(None, max_length=200, description="`next_cursor` of the previous page.")


class GlossaryList(BaseModel):
    glossaries: list[GlossarySummary]
    total: int = Field(description="Glossaries of the account (all pages).")
    next_cursor: str | None = Field(None, description="Pass as `cursor` for the next page; absent on the last page.")


class GlossaryDeleted(BaseModel):
    glossary_id: str
    deleted: bool


def public(record: dict[str, Any], *, with_entries: bool = True) -> dict[str, Any]:
    """The API representation of a stored glossary record."""
    body = {
        "glossary_id": record["glossary_id"],
        "name": record["name"],
        "source_lang": record["source_lang"],
        "target_lang": record["target_lang"],
        "entry_count": len(record["entries"]),
        "created_at": iso(record["created"]),
        "updated_at": iso(record["updated"]),
    }
    if with_entries:
        body.update(
            case_sensitive=record["case_sensitive"],
            description=record.get("description"),
            entries=record["entries"],
        )
    return body
