"""Schemas of the translation-memory endpoints (an extension: docs/memories.md)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.memory_cursors import MAX_CURSOR_CHARS
from core.specs.languages import LanguageCode
from engines.text.memory_files import MAX_TEXT_CHARS, clean_text
from serve_app.schemas.text_fields import free_text, single_line

#: The most entries (or sources) one request may carry; the account's ``memory_entries`` cap bounds the memory.
MAX_REQUEST_ENTRIES = 50_000

#: Memories arrive as JSON: strings must be strings.
_JSON_BODY = ConfigDict(extra="forbid", strict=True)


def _text(value: str) -> str:
    return clean_text(value)


class MemoryEntry(BaseModel):
    model_config = _JSON_BODY

    source: str = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="Text in the memory's source language.")
    target: str = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="Its translation in the target language.")

    _texts = field_validator("source", "target")(_text)


_NAME = Field(min_length=1, max_length=64, description="Unique within the account.")
_SOURCE = Field(description="Concrete source code; never auto. A variant maps to its primary.")
_TARGET = Field(description="Target code; regional variants allowed.")
_DESCRIPTION = Field(None, max_length=200)


class MemoryCreate(BaseModel):
    """A memory from JSON pairs. Sources are matched normalised (whitespace collapsed, case folded): of two pairs
    with the same normalised source, the later is kept."""

    model_config = _JSON_BODY

    name: str = _NAME
    source_lang: LanguageCode = _SOURCE
    target_lang: LanguageCode = _TARGET
    description: str | None = _DESCRIPTION
    entries: list[MemoryEntry] = Field(default_factory=list, max_length=MAX_REQUEST_ENTRIES)

    _name = field_validator("name")(single_line)
    _description = field_validator("description")(free_text)


class MemoryUploadParams(BaseModel):
    """The text fields of a memory created from a file (multipart/form-data with ``file``: TMX, XLIFF 1.2 or 2.0,
    CSV or TSV)."""

    model_config = ConfigDict(extra="forbid")

    name: str = _NAME
    source_lang: LanguageCode = _SOURCE
    target_lang: LanguageCode = _TARGET
    description: str | None = _DESCRIPTION

    _name = field_validator("name")(single_line)
    _description = field_validator("description")(free_text)


class MemoryEntries(BaseModel):
    model_config = _JSON_BODY

    entries: list[MemoryEntry] = Field(max_length=MAX_REQUEST_ENTRIES)


class MemorySources(BaseModel):
    model_config = _JSON_BODY

    sources: list[str] = Field(
        min_length=1,
        max_length=MAX_REQUEST_ENTRIES,
        description="Sources whose entries to delete (matched normalised); unknown ones are ignored.",
    )

    @field_validator("sources")
    @classmethod
    def _sized(cls, value: list[str]) -> list[str]:
        for source in value:
            if not source.strip() or len(source) > MAX_TEXT_CHARS:
                raise ValueError(f"each source must have 1-{MAX_TEXT_CHARS} characters besides whitespace")
        return value


class MemoryListQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: int = Field(100, ge=1, le=100, description="Memories per page.")
    cursor: str | None = Field(None, max_length=200, description="`next_cursor` of the previous page.")


class MemoryEntriesQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: int = Field(100, ge=1, le=1000, description="Entries per page.")
    cursor: str | None = Field(None, max_length=MAX_CURSOR_CHARS, description="`next_cursor` of the previous page of entries.")


class MemoryFileReport(BaseModel):
    format: str = Field(description="tmx, xliff, csv or tsv.")
    pairs: int = Field(description="Pairs read from the file (a repeated source counts once in entry_count).")
    skipped: int = Field(description="Units without text in one of the two languages.")


class MemorySummary(BaseModel):
    memory_id: str
    name: str
    description: str | None = None
    source_lang: str
    target_lang: str
    entry_count: int
    revision: int = Field(description="Grows by one with every change of the entries.")
    bytes: int = Field(description="Stored size, as the memory_bytes and memory_total_bytes caps count it.")
    created_at: str
    updated_at: str


class MemoryCreated(MemorySummary):
    file: MemoryFileReport | None = Field(None, description="What was read from the file (file uploads only).")


class MemoryRecord(MemorySummary):
    entries: list[MemoryEntry] = Field(description="One page of entries, by normalised source.")
    next_cursor: str | None = Field(None, description="Pass as `cursor` for the next page of entries; absent on the last.")


class MemoryList(BaseModel):
    memories: list[MemorySummary]
    total: int = Field(description="Memories of the account (all pages).")
    next_cursor: str | None = Field(None, description="Pass as `cursor` for the next page; absent on the last page.")


class MemoryEntriesPut(BaseModel):
    added: int
    replaced: int = Field(description="Sources already there whose target changed.")
    unchanged: int = Field(description="Pairs equal to the stored ones.")
    memory: MemorySummary


class MemoryEntriesDeleted(BaseModel):
    deleted: int
    memory: MemorySummary


class MemoryDeleted(BaseModel):
    memory_id: str
    deleted: bool


def public(record: dict[str, Any]) -> dict[str, Any]:
    """The API representation of a stored record (without its owner)."""
    return {k: v for k, v in record.items() if k != "account_id"}
