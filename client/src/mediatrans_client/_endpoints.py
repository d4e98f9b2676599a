"""The request of every endpoint, built once for both the sync and the async client (contract section 4)."""

from __future__ import annotations

import json
import mimetypes
import re
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlsplit

from mediatrans_client._requests import FilePart, RequestSpec, drop_none, form_fields

PathOrUrl = str | Path
#: A subtitle file as the methods take it: a path, its content, or a binary file open for reading.
SubtitleInput = str | Path | bytes | IO[bytes]
#: The file name of subtitles given as bytes, or as a file without a name (the service tells the format from the content).
UNNAMED_SUBTITLES = "subtitles"
#: The file name of a translation memory given as bytes (the service tells TMX, XLIFF, CSV and TSV apart by content).
UNNAMED_MEMORY = "memory"
#: The extension fields a form sends as one comma-separated string: more target languages, several glossaries.
ADDITIONAL_TARGETS = "additional_target_langs"
COMMA_JOINED = (ADDITIONAL_TARGETS, "glossary_ids")
#: The extension field a form repeats, once per item.
REPEATED = "instructions"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def is_url(value: PathOrUrl) -> bool:
    return isinstance(value, str) and value.lower().startswith(("http://", "https://"))


def _upload(field: str, path: PathOrUrl) -> dict[str, FilePart]:
    file_path = Path(path)
    if not file_path.is_file():
        raise FileNotFoundError(f"No such file: {file_path}")
    content_type = mimetypes.guess_type(file_path.name)[0] or "application/octet-stream"
    return {field: (file_path.name, file_path, content_type)}


def _subtitle_part(field: str, source: SubtitleInput, unnamed: str = UNNAMED_SUBTITLES) -> dict[str, FilePart]:
    """A subtitle (or memory) file part, under its file name: a path is read afresh on every attempt; bytes and an
    open file are held whole (the service takes at most a few MB), so a retried request sends the same content."""
    if isinstance(source, (str, Path)):
        return _upload(field, source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return {field: (unnamed, bytes(source), "application/octet-stream")}
    data = source.read()
    name = getattr(source, "name", None)
    filename = Path(name).name if isinstance(name, str) and Path(name).name else unnamed
    content = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return {field: (filename, content, "application/octet-stream")}


def _form(fields: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """A submission's form as the service reads it: ``additional_target_langs`` and ``glossary_ids`` as one
    comma-separated string (a list is joined, an empty one left out; a string is sent as given), ``instructions``
    as the field repeated once per instruction (a lone one that starts with ``[``: as a one-item JSON array, the
    service's other form), the rest as :func:`form_fields` sends it."""
    joined = dict(fields)
    for name in COMMA_JOINED:
        value = joined.get(name)
        if value is not None and not isinstance(value, str):
            joined[name] = ",".join(value) or None
    repeated = joined.pop(REPEATED, None)
    form: dict[str, str | list[str]] = dict(form_fields(joined))
    items = [repeated] if isinstance(repeated, str) else [str(item) for item in repeated or ()]
    if len(items) == 1 and items[0].lstrip().startswith("["):
        form[REPEATED] = json.dumps(items, ensure_ascii=False)  # one value starting with "[" is read as a JSON array
    elif items:
        form[REPEATED] = items if len(items) > 1 else items[0]
    return form


def languages_spec(params: Mapping[str, Any], extra_headers: Mapping[str, str]) -> RequestSpec:
    return RequestSpec("GET", "/v1/languages", params=dict(params), headers=dict(extra_headers), authenticated=False)


def video_translate_spec(
    path_or_url: PathOrUrl, fields: Mapping[str, Any], subtitle_file: SubtitleInput | None = None
) -> RequestSpec:
    """``POST /v1/video/translate``: a streamed multipart upload, or a form with ``video_url``; either with the video's
    own subtitles as the ``subtitle_file`` part when given."""
    form = _form(fields)
    subtitles = _subtitle_part("subtitle_file", subtitle_file) if subtitle_file is not None else {}
    if is_url(path_or_url):
        form["video_url"] = str(path_or_url)
        return RequestSpec("POST", "/v1/video/translate", data=form, files=subtitles or None, idempotent=True)
    files = {**_upload("file", path_or_url), **subtitles}
    return RequestSpec("POST", "/v1/video/translate", data=form, files=files, idempotent=True)


def subtitles_translate_spec(file: SubtitleInput, fields: Mapping[str, Any], idempotency_key: str | None = None) -> RequestSpec:
    """``POST /v1/subtitles/translate``: multipart with the subtitle file as ``file``; keyed like a video submission."""
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    form = _form(fields)
    return RequestSpec(
        "POST", "/v1/subtitles/translate", data=form, files=_subtitle_part("file", file), headers=headers, idempotent=True
    )


def video_task_spec(task_id: str) -> RequestSpec:
    return RequestSpec("GET", f"/v1/video/task/{task_id}")


def video_transcript_spec(task_id: str) -> RequestSpec:
    return RequestSpec("GET", f"/v1/video/task/{task_id}/transcript")


def video_revise_spec(task_id: str, body: Mapping[str, Any], idempotency_key: str | None = None) -> RequestSpec:
    """``POST /v1/video/task/{task_id}/revise``: JSON; keyed like a submission (``idempotency_key``, else a fresh one)."""
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    return RequestSpec("POST", f"/v1/video/task/{task_id}/revise", json=drop_none(body), headers=headers, idempotent=True)


def video_add_language_spec(task_id: str, body: Mapping[str, Any], idempotency_key: str | None = None) -> RequestSpec:
    """``POST /v1/video/task/{task_id}/translations``: JSON; keyed like a submission (``idempotency_key``, else a fresh one)."""
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    return RequestSpec("POST", f"/v1/video/task/{task_id}/translations", json=drop_none(body), headers=headers, idempotent=True)


def download_spec(url: str) -> RequestSpec:
    return RequestSpec("GET", url, headers={"Accept": "*/*"})


def voice_clone_spec(sample: PathOrUrl, fields: Mapping[str, Any]) -> RequestSpec:
    """``POST /v1/voice/clone``: multipart with the sample file, or JSON with ``sample`` as an audio URL."""
    if is_url(sample):
        body = drop_none({"sample": str(sample), **fields})
        return RequestSpec("POST", "/v1/voice/clone", json=body, idempotent=True)
    form = form_fields(fields)
    return RequestSpec("POST", "/v1/voice/clone", data=form, files=_upload("sample", sample), idempotent=True)


def voice_list_spec(status: str | None, lang: str | None, limit: int | None = None, cursor: str | None = None) -> RequestSpec:
    params = drop_none({"status": status, "lang": lang, "limit": limit, "cursor": cursor})
    return RequestSpec("GET", "/v1/voice/clone", params=params)


def voice_delete_spec(voice_id: str) -> RequestSpec:
    return RequestSpec("DELETE", f"/v1/voice/clone/{voice_id}")


def voice_get_spec(voice_id: str) -> RequestSpec:
    return RequestSpec("GET", f"/v1/voice/clone/{voice_id}")


def voice_update_spec(voice_id: str, voice_name: str | None, description: str | None) -> RequestSpec:
    body = drop_none({"voice_name": voice_name, "description": description})
    return RequestSpec("PUT", f"/v1/voice/clone/{voice_id}", json=body)


def tts_voices_spec(lang: str | None) -> RequestSpec:
    return RequestSpec("GET", "/v1/tts/voices", params=drop_none({"lang": lang}))


def account_spec() -> RequestSpec:
    return RequestSpec("GET", "/v1/account")


def tts_spec(fields: Mapping[str, Any]) -> RequestSpec:
    """``POST /v1/tts``: answers the audio itself; it creates nothing, so it carries no idempotency key."""
    return RequestSpec("POST", "/v1/tts", json=drop_none(fields), headers={"Accept": "*/*"})


def grammar_spec(fields: Mapping[str, Any]) -> RequestSpec:
    return RequestSpec("POST", "/v1/grammar", json=drop_none(fields))


def game_spec(fields: Mapping[str, Any]) -> RequestSpec:
    return RequestSpec("POST", "/v1/game/localization", json=drop_none(fields), idempotent=True)


def download_targets(urls: Mapping[str, str], directory: Path) -> dict[str, Path]:
    """A distinct file path in ``directory`` for each result link, named after the link's file name."""
    targets: dict[str, Path] = {}
    taken: set[str] = set()
    for kind, url in urls.items():
        name = _SAFE_NAME.sub("_", unquote(Path(urlsplit(url).path).name)).strip("._") or kind
        if name in taken:
            name = f"{kind}-{name}"
        taken.add(name)
        targets[kind] = directory / name
    return targets


def memory_create_spec(
    fields: Mapping[str, Any], entries: list[dict[str, Any]] | None, file: SubtitleInput | None
) -> RequestSpec:
    """``POST /v1/memories``: JSON with ``entries``, or a multipart form with the ``file`` part (TMX, XLIFF, CSV or TSV)
    and the other fields; keyed, so a retry creates at most once."""
    if file is not None:
        form = form_fields(fields)
        return RequestSpec("POST", "/v1/memories", data=form, files=_subtitle_part("file", file, UNNAMED_MEMORY), idempotent=True)
    return RequestSpec("POST", "/v1/memories", json=drop_none({**fields, "entries": entries or []}), idempotent=True)


def memory_list_spec(limit: int | None, cursor: str | None) -> RequestSpec:
    return RequestSpec("GET", "/v1/memories", params=drop_none({"limit": limit, "cursor": cursor}))


def memory_get_spec(memory_id: str, limit: int | None, cursor: str | None) -> RequestSpec:
    """``GET /v1/memories/{memory_id}``: the record and one page of its entries."""
    return RequestSpec("GET", f"/v1/memories/{memory_id}", params=drop_none({"limit": limit, "cursor": cursor}))


def memory_entries_spec(memory_id: str, entries: list[dict[str, Any]], replace_all: bool) -> RequestSpec:
    """``POST …/entries`` adds pairs or replaces those with the same source; ``PUT …/entries`` replaces them all."""
    return RequestSpec("PUT" if replace_all else "POST", f"/v1/memories/{memory_id}/entries", json={"entries": entries})


def memory_delete_entries_spec(memory_id: str, sources: list[str]) -> RequestSpec:
    return RequestSpec("POST", f"/v1/memories/{memory_id}/entries/delete", json={"sources": sources})


def memory_delete_spec(memory_id: str) -> RequestSpec:
    return RequestSpec("DELETE", f"/v1/memories/{memory_id}")
