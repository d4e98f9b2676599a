"""The request of every endpoint, built once for both the sync and the async client (contract section 4)."""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from mediatrans_client._requests import RequestSpec, drop_none, form_fields

PathOrUrl = str | Path
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def is_url(value: PathOrUrl) -> bool:
    return isinstance(value, str) and value.lower().startswith(("http://", "https://"))


def _upload(field: str, path: PathOrUrl) -> dict[str, tuple[str, Path, str | None]]:
    file_path = Path(path)
    if not file_path.is_file():
        raise FileNotFoundError(f"No such file: {file_path}")
    content_type = mimetypes.guess_type(file_path.name)[0] or "application/octet-stream"
    return {field: (file_path.name, file_path, content_type)}


def languages_spec(params: Mapping[str, Any], extra_headers: Mapping[str, str]) -> RequestSpec:
    return RequestSpec("GET", "/v1/languages", params=dict(params), headers=dict(extra_headers), authenticated=False)


def video_translate_spec(path_or_url: PathOrUrl, fields: Mapping[str, Any]) -> RequestSpec:
    """``POST /v1/video/translate``: a streamed multipart upload, or a form with ``video_url``."""
    form = form_fields(fields)
    if is_url(path_or_url):
        form["video_url"] = str(path_or_url)
        return RequestSpec("POST", "/v1/video/translate", data=form, idempotent=True)
    return RequestSpec("POST", "/v1/video/translate", data=form, files=_upload("file", path_or_url), idempotent=True)


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
