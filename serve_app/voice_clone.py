"""``POST /v1/voice/clone``: read and check the sample, then fit now or as a job.

Order of checks (each with its voice-group code): fields (400 1001; 400 1006
for a name the account already uses), the quota slots (403 2004), the sample
itself in the VoiceCloner (415 3002 format, 400 1001 rate under 16 kHz,
400 1007 length, 400 1009 no speech, 400 1008 SNR), then the plan quota
(456 4002). Synchronous clones answer ``ready`` with ``quality_score``;
``enhance_quality`` or ``callback_url`` store the prepared speech and queue a
``voice`` task on the job stream (durable like video tasks), answering
``processing`` at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import io
import time
from pathlib import Path
from typing import Any

import numpy as np
import pydantic
import soundfile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.accounts import Account
from core.context import request_id_var
from core.errors import ApiError, ErrorKind
from core.voices import PROCESSING, READY, Voice, VoiceNameTaken, VoiceSlotsFull
from deployments.engines.errors import InvalidUrl, MediaTooLarge
from deployments.engines.net.fetch import download
from deployments.engines.net.urls import check_url
from deployments.engines.voice.cloner import PREPARED_RATE, FittedVoice, PreparedSample
from serve_app.bodies import read_json
from serve_app.catalog import UnknownLanguage
from serve_app.idempotency import fingerprint
from serve_app.responses import validation_error
from serve_app.schemas.voice import VoiceCloneParams
from serve_app.services import Services
from serve_app.uploads import read_form

MAX_SAMPLE_BYTES = 50 * 1000 * 1000  # contract: at most 50 MB


@dataclasses.dataclass(frozen=True)
class CloneInput:
    params: VoiceCloneParams
    sample: bytes
    fingerprint: str


async def read_clone_request(request: Request, services: Services, staging: Path) -> CloneInput:
    """The fields and the sample bytes (uploaded, or fetched from the `sample` URL)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    upload: bytes | None = None
    if content_type == "application/json":
        raw = await read_json(request)
        if not isinstance(raw, dict):
            raise ApiError(ErrorKind.INVALID_PARAMETER, "Body must be a JSON object.")
        fields: dict[str, Any] = raw
    else:
        form = await read_form(request, staging, file_field="sample")
        fields = dict(form.fields)
        if form.file is not None:
            if form.file.size > MAX_SAMPLE_BYTES:
                raise ApiError(ErrorKind.PAYLOAD_TOO_LARGE, "The sample is over 50 MB.")
            upload = await asyncio.to_thread(form.file.path.read_bytes)
    params = _parse(fields)
    if (upload is None) == (params.sample is None):
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Give the sample exactly once: a file part, or an audio URL.")
    sample = upload if upload is not None else await _fetch(services, str(params.sample), staging)
    if not sample:
        raise ApiError(ErrorKind.UNSUPPORTED_AUDIO_FORMAT, "The sample is empty.")
    digest = fingerprint("POST", "/v1/voice/clone", {"fields": params.model_dump(), "sample": _sha256(sample)})
    return CloneInput(params, sample, digest)


def _parse(fields: dict[str, Any]) -> VoiceCloneParams:
    try:
        return VoiceCloneParams.model_validate(fields)
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def _fetch(services: Services, url: str, staging: Path) -> bytes:
    staging.mkdir(parents=True, exist_ok=True)
    timeout = services.args.voice_cloner.sample_timeout_s if services.args.voice_cloner else 60.0
    try:
        result = await download(
            url, staging / "sample", policy=services.url_policy, max_bytes=MAX_SAMPLE_BYTES, timeout_s=timeout
        )
    except MediaTooLarge:
        raise ApiError(ErrorKind.PAYLOAD_TOO_LARGE, "The sample at this URL is over 50 MB.") from None
    except InvalidUrl as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"sample: {exc}") from None
    return await asyncio.to_thread(result.path.read_bytes)


async def check_fields(services: Services, account: Account, params: VoiceCloneParams) -> str:
    """The canonical language code; raises for a bad language, callback URL, taken name or full quota."""
    try:
        lang = services.catalog.canonical(params.lang)
    except UnknownLanguage:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"lang {params.lang!r} is not a supported language code.") from None
    if params.callback_url:
        try:
            await asyncio.to_thread(check_url, params.callback_url, services.url_policy)
        except InvalidUrl as exc:
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"callback_url: {exc}") from None
    if await services.voices.slots_used(account.id) >= account.voice_slots:
        raise _quota_full(account)
    return lang


def _quota_full(account: Account) -> ApiError:
    return ApiError(
        ErrorKind.VOICE_QUOTA_FULL, f"The account holds {account.voice_slots} voices, its quota; delete one to free a slot."
    )


async def clone(services: Services, account: Account, request: CloneInput) -> Response:
    params = request.params
    lang = await check_fields(services, account, params)
    cloner = _cloner(services)
    timeout = services.args.voice_cloner.sync_timeout_s if services.args.voice_cloner else 120.0
    prepared: PreparedSample = await asyncio.wait_for(
        cloner.prepare.remote(request.sample, params.noise_reduction), services.args.handle_timeout_s
    )
    gender, source = (params.gender, "given") if params.gender != "unknown" else (prepared.gender, "estimated")
    voice = Voice(
        voice_id=services.voices.new_id(),
        account_id=account.id,
        voice_name=params.voice_name,
        lang=lang,
        status=PROCESSING,
        created_at=time.time(),
        description=params.description,
        gender=gender,
        gender_source=source,
        sample_duration=prepared.duration_s,
    )
    asynchronous = params.enhance_quality or bool(params.callback_url)
    await services.quotas.consume(account, "voice_clones", 1)
    try:
        if asynchronous:
            voice = await _queue_training(services, account, voice, prepared, params)
        else:
            fitted: FittedVoice = await asyncio.wait_for(cloner.fit.remote(prepared, lang, gender, False), timeout)
            voice = dataclasses.replace(
                voice, status=READY, completed_at=time.time(), quality_score=fitted.quality_score, engine=fitted.engine,
                style=fitted.style,
            )  # fmt: skip
            await _create(services, account, voice)
    except BaseException:
        await services.quotas.refund(account, "voice_clones", 1)
        raise
    return JSONResponse(voice.public())


async def _create(services: Services, account: Account, voice: Voice) -> Voice:
    try:
        return await services.voices.create(voice, account.voice_slots)
    except VoiceNameTaken:
        raise ApiError(ErrorKind.VOICE_NAME_EXISTS, f"The account already has a voice named {voice.voice_name!r}.") from None
    except VoiceSlotsFull:
        raise _quota_full(account) from None


async def _queue_training(
    services: Services, account: Account, voice: Voice, prepared: PreparedSample, params: VoiceCloneParams
) -> Voice:
    """Store the prepared speech, create the voice (processing) and its ``voice`` task."""
    path = services.args.worker.staging_dir / f"{voice.voice_id}.wav"
    path.parent.mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(_write_wav, path, prepared.speech)
    stored = await services.files.put(voice.voice_id, "speech.wav", path, "audio/wav", consume=True)
    await _create(services, account, voice)
    spec = {
        "voice_id": voice.voice_id,
        "voice_name": voice.voice_name,
        "lang": voice.lang,
        "gender": voice.gender,
        "enhance": params.enhance_quality,
        "sample_key": stored.key,
        "sample_meta": {k: v for k, v in dataclasses.asdict(prepared).items() if k != "speech"},
        "created_at": voice.created_at,
        "callback_url": params.callback_url,
    }
    try:
        task = await services.tasks.create(account.id, spec, kind="voice", request_id=request_id_var.get())
    except BaseException:
        await services.voices.delete(voice)
        raise
    return await services.voices.update(voice, task_id=task.task_id)


def _write_wav(path: Path, speech: np.ndarray) -> None:
    buffer = io.BytesIO()
    soundfile.write(buffer, speech, PREPARED_RATE, subtype="PCM_16", format="WAV")
    path.write_bytes(buffer.getvalue())


def _cloner(services: Services) -> Any:
    handle = services.handles.get("voice_cloner")
    if handle is None:
        raise ApiError(ErrorKind.UNAVAILABLE, "Voice cloning is not deployed on this service.")
    return handle
