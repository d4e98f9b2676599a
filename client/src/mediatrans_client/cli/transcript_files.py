"""The JSON files of ``video revise`` and ``video edit``: edits read from a file, a transcript to edit, and the
edits an edited transcript stands for (only the fields that changed)."""

from __future__ import annotations

import json
import os
import shlex
from typing import Any

from pydantic import ValidationError

from mediatrans_client.models import SegmentEdit, Transcript

#: The fields of a segment an edit may change, in the order the editable file shows them.
EDITABLE = ("start", "end", "speaker", "source", "translation")
_TEXTS = ("speaker", "source", "translation")


class EditFileError(ValueError):
    """A file that cannot be read as edits: not JSON, not segments, or segment ids changed."""


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise EditFileError(f"not valid JSON: {exc}") from None


def read_edits(text: str) -> tuple[list[SegmentEdit], dict[str, Any]]:
    """``EDITS.json``: a list of edits, or an object with ``segments`` and output choices; both returned."""
    document = _load(text)
    if isinstance(document, list):
        items, choices = document, {}
    elif isinstance(document, dict) and isinstance(document.get("segments"), list):
        items, choices = document["segments"], {k: v for k, v in document.items() if k != "segments"}
    else:
        raise EditFileError('expected a list of edits, or an object with "segments" and output choices')
    edits: list[SegmentEdit] = []
    for position, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise EditFileError(f"edit {position} is not an object")
        try:
            edits.append(SegmentEdit.model_validate(item))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'edit'}: {e['msg']}" for e in exc.errors())
            raise EditFileError(f"edit {position}: {problems}") from None
    return edits, choices


def editable_rows(transcript: Transcript) -> list[dict[str, Any]]:
    """One object per segment: ``id``, ``start``, ``end``, ``speaker`` (when it has one), ``source``, ``translation``."""
    rows: list[dict[str, Any]] = []
    for segment in transcript.segments:
        row: dict[str, Any] = {"id": segment.id, "start": segment.start, "end": segment.end}
        if segment.speaker is not None:
            row["speaker"] = segment.speaker
        rows.append(row | {"source": segment.source, "translation": segment.translation})
    return rows


def dump_rows(rows: list[dict[str, Any]]) -> str:
    return json.dumps(rows, ensure_ascii=False, indent=2) + "\n"


def _checked(ident: str, name: str, value: Any) -> Any:
    if name in _TEXTS and not isinstance(value, str):
        raise EditFileError(f"segment {ident}: {name} must be a string")
    if name not in _TEXTS and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise EditFileError(f"segment {ident}: {name} must be a number of seconds")
    return value


def changed_fields(original: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """The edits the edited file ``text`` makes to ``original`` (:func:`editable_rows`): per segment, its ``id``
    and only the fields whose value changed; segments left alone are not listed.

    A field removed from a segment is left as it was. Raises :class:`EditFileError` when the file is not a
    list of segment objects, or when segment ids were changed, added, repeated or removed.
    """
    edited = _load(text)
    if not isinstance(edited, list) or not all(isinstance(row, dict) for row in edited):
        raise EditFileError("expected a JSON list of segment objects")
    before = {row["id"]: row for row in original}
    seen: set[str] = set()
    for position, row in enumerate(edited, 1):
        ident = row.get("id")
        if not isinstance(ident, str) or ident not in before:
            raise EditFileError(f"segment {position}: id {ident!r} is not one of the transcript's (ids may not change)")
        if ident in seen:
            raise EditFileError(f"segment {position}: id {ident!r} appears twice")
        seen.add(ident)
    removed = [ident for ident in before if ident not in seen]
    if removed:
        raise EditFileError(f"segments removed: {', '.join(removed)} (keep every segment; ids may not change)")
    edits: list[dict[str, Any]] = []
    for row in edited:
        ident = row["id"]
        unknown = sorted(set(row) - {"id", *EDITABLE})
        if unknown:
            raise EditFileError(f"segment {ident}: unknown field(s) {', '.join(unknown)} (editable: {', '.join(EDITABLE)})")
        changes = {name: _checked(ident, name, row[name]) for name in EDITABLE if name in row}
        changes = {name: value for name, value in changes.items() if value != before[ident].get(name)}
        if changes:
            edits.append({"id": ident, **changes})
    return edits


def editor_command(editor: str | None) -> list[str]:
    """The editor to run (``--editor``, else ``$VISUAL``, else ``$EDITOR``, else ``vi``) as an argument list."""
    chosen = editor or os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return shlex.split(chosen) or ["vi"]
