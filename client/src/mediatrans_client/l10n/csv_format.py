"""Spreadsheet string tables (`.csv`, `.tsv`) with stdlib csv: one row per string, one column per language.

Header row required. Key column: the first of `key`, `id`, `name`, `string_id` (in that order of preference,
case-insensitive) present in the header. Source column: the header equal to the source language code (case and
`-`/`_` ignored; `en` also matches an `en-US` header and `en-US` an `en` header), else `source`, else `text`.
Optional columns: notes (`comment`, `comments`, `notes`, `description`, `context`), character limit
(`max_length`, `maxlength`, `max length`, `limit`) and `translate` (`no`/`false`/`0` = untranslatable). Rows
with an empty key (section titles, blank lines) are not entries but are kept; an empty source cell is an
untranslatable entry. Output: ONE file `out_dir/<input name>` with every row and column in place and one column
per target language named by its code, replacing a column of that language (header kept) or appended at the end.
Untranslated cells get the source text. Delimiter (`,`/`;` detected from the header line, tab for `.tsv`),
line ending and a UTF-8 BOM are preserved; quoting is csv's minimal quoting.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path

from mediatrans_client.l10n.entries import Entry, Translated, UnsupportedFileError, parse_limit

BOM = "\ufeff"
KEY_COLUMNS = ("key", "id", "name", "string_id")
NOTE_COLUMNS = ("comment", "comments", "notes", "description", "context")
LIMIT_COLUMNS = ("max_length", "maxlength", "max length", "limit")
NO = frozenset({"no", "false", "0"})


def _norm(header: str) -> str:
    return header.strip().lower().replace("_", "-")


def _find(headers: list[str], names: tuple[str, ...]) -> int | None:
    """Index of the first of `names` (in preference order) among the headers."""
    lowered = [h.strip().lower() for h in headers]
    for name in names:
        if name in lowered:
            return lowered.index(name)
    return None


def _language_column(headers: list[str], lang: str) -> int | None:
    wanted = _norm(lang)
    primary = wanted.split("-")[0]
    normed = [_norm(h) for h in headers]
    if wanted in normed:
        return normed.index(wanted)
    for index, header in enumerate(normed):
        if header == primary or header.split("-")[0] == wanted:
            return index
    return None


def _delimiter(path: Path, text: str) -> str:
    if path.suffix.lower() == ".tsv":
        return "\t"
    header_line = text.split("\n", 1)[0]
    return ";" if header_line.count(";") > header_line.count(",") else ","


class CsvCatalog:
    def __init__(self, path: Path, source_lang: str) -> None:
        self.path = path
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UnsupportedFileError(f"{path.name}: not UTF-8 text ({exc})") from exc
        self._bom = text.startswith(BOM)
        text = text.removeprefix(BOM)
        self._delimiter = _delimiter(path, text)
        self._newline = "\r\n" if "\r\n" in text else "\n"
        try:
            self._rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=self._delimiter, strict=True))
        except csv.Error as exc:
            raise UnsupportedFileError(f"{path.name}: not a readable CSV table ({exc})") from exc
        if not self._rows or not any(cell.strip() for cell in self._rows[0]):
            raise UnsupportedFileError(f"{path.name}: no header row")
        headers = self._rows[0]
        key_col = _find(headers, KEY_COLUMNS)
        if key_col is None:
            raise UnsupportedFileError(f"{path.name}: no key column (one of {', '.join(KEY_COLUMNS)}) in the header {headers}")
        source_col = _language_column(headers, source_lang)
        if source_col is None:
            source_col = _find(headers, ("source", "text"))
        if source_col is None:
            wanted = f"{source_lang!r}, 'source' or 'text'"
            raise UnsupportedFileError(f"{path.name}: no source column ({wanted}) in the header {headers}")
        self._key_col, self._source_col = key_col, source_col
        notes_col, limit_col = _find(headers, NOTE_COLUMNS), _find(headers, LIMIT_COLUMNS)
        translate_col = _find(headers, ("translate",))
        self.entries: list[Entry] = []
        seen: set[str] = set()
        for number, cells in enumerate(self._rows[1:], start=2):
            row = cells + [""] * (len(headers) - len(cells))
            key = row[key_col].strip()
            if not key:
                continue
            if key in seen:
                raise UnsupportedFileError(f"{path.name}: duplicate key {key!r} on line {number}")
            seen.add(key)
            source = row[source_col]
            flag = row[translate_col].strip().lower() if translate_col is not None else ""
            self.entries.append(
                Entry(
                    key=key,
                    source=source,
                    notes=row[notes_col] if notes_col is not None else "",
                    translatable=flag not in NO and source != "",
                    max_length=parse_limit(row[limit_col]) if limit_col is not None else None,
                )
            )

    def write(self, out_dir: Path, translations: Mapping[str, Mapping[str, Translated]]) -> list[Path]:
        headers = list(self._rows[0])
        # A blank line stays blank; shorter rows are padded so that every language column lines up.
        rows = [row + [""] * (len(headers) - len(row)) if row else [] for row in self._rows[1:]]
        translatable = {e.key for e in self.entries if e.translatable}
        for lang, by_key in translations.items():
            column = _language_column_exact(headers, lang)
            if column in (self._key_col, self._source_col):
                raise ValueError(f"{self.path.name}: target language {lang!r} is the key or source column")
            if column is None:
                headers.append(lang)
                column = len(headers) - 1
                for row in rows:
                    if row:
                        row.append("")
            for row in rows:
                key = row[self._key_col].strip() if row else ""
                if not key:
                    continue
                done = by_key.get(key) if key in translatable else None
                row[column] = done.text if done is not None else row[self._source_col]
        out_dir.mkdir(parents=True, exist_ok=True)
        out = out_dir / self.path.name
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer, delimiter=self._delimiter, lineterminator=self._newline)
        writer.writerow(headers)
        writer.writerows(rows)
        out.write_text((BOM if self._bom else "") + buffer.getvalue(), encoding="utf-8", newline="")
        return [out]


def _language_column_exact(headers: list[str], lang: str) -> int | None:
    normed = [_norm(h) for h in headers]
    return normed.index(_norm(lang)) if _norm(lang) in normed else None
