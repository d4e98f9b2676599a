"""The format-neutral model of a localization file: entries read from it, translations written back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class UnsupportedFileError(ValueError):
    """The file cannot be handled: unknown suffix, unparsable content, or a layout this layer cannot map."""


@dataclass(frozen=True)
class Entry:
    key: str  # unique within the file, stable across a round trip
    source: str  # the singular (or only) source text
    source_plural: str | None = None  # plural source text (PO msgid_plural), else None
    notes: str = ""  # developer/translator comments joined with "\n" (display only)
    translatable: bool = True
    max_length: int | None = None  # per-string character limit declared by the file


@dataclass(frozen=True)
class Translated:
    text: str  # translation of Entry.source
    plural: str | None = None  # translation of Entry.source_plural


class Catalog(Protocol):
    path: Path
    entries: list[Entry]

    def write(self, out_dir: Path, translations: Mapping[str, Mapping[str, Translated]]) -> list[Path]:
        """translations: target language code -> Entry.key -> Translated. Returns the files written."""
        ...


def language_file(out_dir: Path, lang: str, name: str) -> Path:
    """`out_dir/<lang>/<name>` for the per-language formats, its directory created."""
    if not lang or "/" in lang or "\\" in lang or lang in (".", ".."):
        raise ValueError(f"not a usable language code for a directory name: {lang!r}")
    folder = out_dir / lang
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def parse_limit(value: str | None) -> int | None:
    """A positive character limit from an attribute, flag or cell; None when absent or not a positive integer."""
    if value is None:
        return None
    try:
        limit = int(value.strip())
    except ValueError:
        return None
    return limit if limit > 0 else None
