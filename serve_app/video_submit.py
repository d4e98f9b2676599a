"""Validation and creation of video translation tasks (``POST /v1/video/translate``).

Uploads are validated synchronously (ffprobe), so an unreadable file, a video
without audio or one over 3 hours, and an upload the asked outputs cannot be
made from (``burned_video``/``all``/dubbing without a picture of at least
16×16 pixels) are refused with the contract's 400 codes before a task exists.
An account at its ``pending_tasks`` or ``output_bytes`` cap is refused (402)
before the upload is probed. ``video_url`` sources are checked against the URL
policy here and fetched by the worker, whose failures land in the task's ``error``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import shutil
import uuid
from pathlib import Path
from typing import Any

import pydantic

from core import caps
from core.accounts import Account
from core.errors import ApiError, ErrorKind
from core.specs.steering import named_glossaries
from core.specs.video import LAYOUT_FIELDS, GlossarySnapshot, UploadSource, UrlSource, VideoJobSpec
from engines.errors import InvalidInput, InvalidUrl
from engines.media.probe import MediaInfo, check_renderable, probe, validate
from engines.net.urls import check_url
from engines.text.subtitle_files import MAX_SUBTITLE_BYTES, SubtitleFile
from engines.translation.languages import primary
from serve_app.responses import to_api_error, validation_error
from serve_app.schemas.video import VideoTranslateParams
from serve_app.services import Services
from serve_app.steering import check_memory, glossary_records, snapshots
from serve_app.subtitle_input import read_subtitle_file, subtitle_language
from serve_app.uploads import Attachment, FormBody, UploadedFile

#: The multipart part of a video's own subtitles, and its cap.
SUBTITLE_FIELD = "subtitle_file"
ATTACHMENTS = {SUBTITLE_FIELD: MAX_SUBTITLE_BYTES}


@dataclasses.dataclass(frozen=True)
class Submission:
    """A validated request, ready to become a task once its source is stored.

    Attributes:
        options: the validated parameters with canonical language codes.
        glossary: the glossary snapshot, if one was named.
        media_seconds: the probed duration of an upload; None for a URL.
        fingerprint: what makes two submissions the same (idempotency).
        additional: the extra target languages, canonical (``additional_target_langs``).
        subtitles: the video's own subtitles (``subtitle_file``), read, and the part as sent.
        glossary_records: the glossaries named (``glossary_id``, ``glossary_ids``), as stored.
        glossaries: the extra languages' glossary snapshots (serve_app/steering.py).
    """

    options: VideoTranslateParams
    glossary: GlossarySnapshot | None
    media_seconds: float | None
    fingerprint: dict[str, Any]
    additional: list[str] = dataclasses.field(default_factory=list)
    subtitles: tuple[Attachment, SubtitleFile] | None = None
    glossary_records: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    glossaries: dict[str, GlossarySnapshot] = dataclasses.field(default_factory=dict)

    def spec(self, source: UploadSource | UrlSource) -> VideoJobSpec:
        fields = self.options.model_dump(exclude={"video_url", "additional_target_langs"})
        explicit = [name for name in LAYOUT_FIELDS if name in self.options.model_fields_set]
        return VideoJobSpec(
            **fields, source=source, glossary=self.glossary, media_seconds=self.media_seconds, explicit_layout=explicit
        )


def parse_params(form: FormBody) -> VideoTranslateParams:
    try:
        return VideoTranslateParams.model_validate(form.fields)
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None


async def validate_submission(services: Services, account: Account, form: FormBody) -> Submission:
    params = parse_params(form)
    _check_source(params, form.file)
    # Before any costly check: the task would be refused at creation anyway (which decides, atomically).
    await services.tasks.check_caps(account.id, "video", caps.resolve(account))
    target, source = _languages(services, params)
    await _check_features(services, params, target)
    subtitles = await _subtitles(params, form)
    if subtitles is not None:  # the language is the subtitles': told from their text when not given
        source = await subtitle_language(services, params.source_lang, subtitles[1], target)
    await _check_pair(services, source, target, recognized=subtitles is None)
    for field in ("video_url", "callback_url"):
        if getattr(params, field):
            await check_url_field(services, field, getattr(params, field))
    records = await glossary_records(services, account, named_glossaries(params.glossary_id, params.glossary_ids))
    later = params.additional_target_langs is not None  # glossaries for extra languages: checked with them
    glossary = snapshots(records, source, [target], every_one_used=not later).get(target)
    await check_memory(services, account, params.memory_id, source, target)
    info = await _probe_upload(form.file, params) if form.file else None
    options = params.model_copy(update={"target_lang": target, "source_lang": source})
    subtitle_sha = hashlib.sha256(subtitles[0].data).hexdigest() if subtitles else None
    fingerprint = {"fields": form.fields, "file_sha256": form.file.sha256 if form.file else None, "subtitles": subtitle_sha}
    seconds = info.duration if info else None
    return Submission(options, glossary, seconds, fingerprint, subtitles=subtitles, glossary_records=records)


async def _subtitles(params: VideoTranslateParams, form: FormBody) -> tuple[Attachment, SubtitleFile] | None:
    """The video's own subtitles (``subtitle_file``), read; speakers come from them, so diarization is refused."""
    part = form.attachments.get(SUBTITLE_FIELD)
    if part is None:
        return None
    if params.enable_diarization:
        raise ApiError(ErrorKind.INVALID_PARAMETER, "enable_diarization: with subtitle_file the speakers are the subtitles'.")
    if params.start_time or params.end_time is not None:
        raise ApiError(ErrorKind.INVALID_PARAMETER, "start_time and end_time: with subtitle_file the times are the subtitles'.")
    return part, await read_subtitle_file(part.data, part.filename, SUBTITLE_FIELD)


def _check_source(params: VideoTranslateParams, file: UploadedFile | None) -> None:
    if (file is None) == (params.video_url is None):
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Give exactly one of file and video_url.")
    if file is not None and file.size == 0:
        raise ApiError(ErrorKind.UNSUPPORTED_VIDEO, "The uploaded file is empty.")


async def _check_features(services: Services, params: VideoTranslateParams, target: str) -> None:
    """Dubbing and diarization need their deployments; their parameters need them switched on.

    A parameter that would have no effect is refused rather than silently ignored.
    """
    given = params.model_fields_set
    if not params.enable_dubbing:
        for name in ("dubbing_voice", "dubbing_speed", "dubbing_bg_music"):
            if name in given:
                raise ApiError(ErrorKind.INVALID_PARAMETER, f"{name} applies only with enable_dubbing=true.")
    if not params.enable_diarization and params.speaker_count is not None:
        raise ApiError(ErrorKind.INVALID_PARAMETER, "speaker_count applies only with enable_diarization=true.")
    if params.enable_diarization:
        services.handle("diarizer", field="enable_diarization")
    if params.enable_dubbing:
        await check_dubbing(services, target)


async def check_dubbing(services: Services, target: str) -> None:
    """Dubbing needs the TTS deployment and a voice that speaks ``target``."""
    tts = services.handle("tts", field="enable_dubbing")
    languages: list[str] = await services.tts_languages.get(lambda: asyncio.wait_for(tts.languages.remote(), 30))
    if primary(target) not in languages:
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, f"enable_dubbing: no voice speaks {target} on this service.")


def _languages(services: Services, params: VideoTranslateParams) -> tuple[str, str | None]:
    catalog = services.catalog
    target = catalog.resolve(params.target_lang, "target_lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE)
    if params.source_lang is None:
        return target, None
    return target, catalog.resolve(params.source_lang, "source_lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE, as_primary=True)


async def _check_pair(services: Services, source: str | None, target: str, *, recognized: bool = True) -> None:
    caps = await services.capabilities.get()
    if recognized and source is not None and source not in caps.speech_languages:
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, f"Speech recognition of {source} is not available on this service.")
    if source is not None and not caps.translates(source, target):
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, caps.refusal(source, target))
    if source is None and not any(t == target for _s, t in caps.translation_pairs):
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, f"No language can be translated into {target} on this service.")


async def check_url_field(services: Services, field: str, url: str) -> None:
    try:
        await asyncio.to_thread(check_url, url, services.url_policy)
    except InvalidUrl as exc:
        raise ApiError(ErrorKind.INVALID_URL, f"{field}: {exc}") from None


async def _probe_upload(file: UploadedFile, params: VideoTranslateParams) -> MediaInfo:
    try:
        info = await asyncio.to_thread(probe, file.path, filename_hint=file.filename)
    except InvalidInput as exc:
        raise to_api_error(exc) from None
    check_upload(info, params)
    return info


def check_upload(info: MediaInfo, params: VideoTranslateParams) -> None:
    """Refuse, before a task exists (and is charged), a probed upload the pipeline or the asked outputs cannot use.

    ``validate`` is the contract's acceptance (container, codecs, audio, limits); burning
    subtitles (``burned_video``, ``all``) and dubbing also need a picture of a usable size.
    """
    try:
        validate(info)
        check_renderable(info, burns=params.burns, dubs=params.enable_dubbing)
    except InvalidInput as exc:
        raise to_api_error(exc) from None


def upload_dir(services: Services) -> Path:
    return services.args.worker.staging_dir / uuid.uuid4().hex


def discard(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
