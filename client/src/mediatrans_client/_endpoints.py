"""The request of every endpoint, built once for both the sync and the async client (contract section 4)."""

from __future__ import annotations

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
#: The extension field of more target languages, sent as one comma-separated string.
ADDITIONAL_TARGETS = "additional_target_langs"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def is_url(value: PathOrUrl) -> bool:
    return isinstance(value, str) and value.lower().startswith(("http://", "https://"))


def _upload(field: str, path: PathOrUrl) -> dict[str, FilePart]:
    file_path = Path(path)
    if not file_path.is_file():
        raise FileNotFoundError(f"No such file: {file_path}")
    content_type = mimetypes.guess_type(file_path.name)[0] or "application/octet-stream"
    return {field: (file_path.name, file_path, content_type)}


def _subtitle_part(field: str, source: SubtitleInput) -> dict[str, FilePart]:
    """A subtitle file part, under its file name: a path is read afresh on every attempt; bytes and an open file
    are held whole (the service takes at most 2 MB), so a retried request sends the same content."""
    if isinstance(source, (str, Path)):
        return _upload(field, source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return {field: (UNNAMED_SUBTITLES, bytes(source), "application/octet-stream")}
    data = source.read()
    name = getattr(source, "name", None)
    filename = Path(name).name if isinstance(name, str) and Path(name).name else UNNAMED_SUBTITLES
    content = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return {field: (filename, content, "application/octet-stream")}


def _joined_targets(fields: Mapping[str, Any]) -> dict[str, Any]:
    """``additional_target_langs`` as the service reads it: one comma-separated string (a list is joined, an empty one
    left out; a string is sent as given)."""
    joined = dict(fields)
    value = joined.get(ADDITIONAL_TARGETS)
    if value is not None and not isinstance(value, str):
        joined[ADDITIONAL_TARGETS] = ",".join(value) or None
    return joined


def languages_spec(params: Mapping[str, Any], extra_headers: Mapping[str, str]) -> RequestSpec:
    return RequestSpec("GET", "/v1/languages", params=dict(params), headers=dict(extra_headers), authenticated=False)


def video_translate_spec(
    path_or_url: PathOrUrl, fields: Mapping[str, Any], subtitle_file: SubtitleInput | None = None
) -> RequestSpec:
    """``POST /v1/video/translate``: a streamed multipart upload, or a form with ``video_url``; either with the video's
    own subtitles as the ``subtitle_file`` part when given."""
    form = form_fields(_joined_targets(fields))
    subtitles = _subtitle_part("subtitle_file", subtitle_file) if subtitle_file is not None else {}
    if is_url(path_or_url):
        form["video_url"] = str(path_or_url)
        return RequestSpec("POST", "/v1/video/translate", data=form, files=subtitles or None, idempotent=True)
    files = {**_upload("file", path_or_url), **subtitles}
    return RequestSpec("POST", "/v1/video/translate", data=form, files=files, idempotent=True)


def subtitles_translate_spec(file: SubtitleInput, fields: Mapping[str, Any], idempotency_key: str | None = None) -> RequestSpec:
    """``POST /v1/subtitles/translate``: multipart with the subtitle file as ``file``; keyed like a video submission."""
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    form = form_fields(_joined_targets(fields))
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
