"""``POST /v1/voice/clone``: cheap checks first, then the sample, then fit now or as a job.

Order of work, cheapest first, each step with its voice-group code: fields
(400 1001), the name (400 1006 for one the account already uses), the
language, the sample URL's syntax and the callback URL (400 1001), a free
slot (403 2004), a deployed cloner (503 5002) and the plan quota (456 4002,
charged here). Only then is the sample fetched (a `sample` URL; 413 3001,
400 1001) or read (an upload, already streamed to disk) and checked in the
VoiceCloner (415 3002 format or rate, 400 1001 rate under 16 kHz, 400 1007
length, 400 1009 no speech, 400 1008 SNR). A refusal after the charge refunds it; so does a training
that fails later (``pipelines.voice_lifecycle``). Synchronous clones answer
``ready`` with ``quality_score``; ``enhance_quality`` or ``callback_url``
store the prepared speech and queue a ``voice`` task on the job stream
(durable like video tasks; its record holds a ``core.specs.voice.VoiceJobSpec``),
answering ``processing`` at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
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
from core.billing import charged
from core.context import request_id_var
from core.errors import ApiError, ErrorKind
from core.specs.voice import SampleFacts, VoiceJobSpec
from core.voices import PROCESSING, READY, Voice, VoiceNameTaken, VoiceSlotsFull
from engines.errors import InvalidUrl, MediaTooLarge
from engines.net.fetch import download
from engines.net.urls import check_url
from engines.voice.cloner import PREPARED_RATE, FittedVoice, PreparedSample
from serve_app.bodies import read_json
from serve_app.deployment_calls import call
from serve_app.idempotency import fingerprint
from serve_app.responses import validation_error
from serve_app.schemas.voice import VoiceCloneParams
from serve_app.services import Services
from serve_app.uploads import UploadedFile, read_form

MAX_SAMPLE_BYTES = 50 * 1000 * 1000  # contract: at most 50 MB


@dataclasses.dataclass(frozen=True)
class CloneInput:
    """A parsed create request; nothing of its sample has been fetched or decoded yet.

    Attributes:
        upload: the streamed file part (multipart); None when ``params.sample`` is an audio URL.
        fingerprint: of the fields and the upload's digest (a URL sample is named by its URL).
    """

    params: VoiceCloneParams
    upload: UploadedFile | None
    fingerprint: str


async def read_clone_request(request: Request, staging: Path) -> CloneInput:
    """The fields, and the uploaded sample when there is one (a `sample` URL is not fetched here)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    upload: UploadedFile | None = None
    if content_type == "application/json":
        raw = await read_json(request)
        if not isinstance(raw, dict):
            raise ApiError(ErrorKind.INVALID_PARAMETER, "Body must be a JSON object.")
        fields: dict[str, Any] = raw
    else:
        form = await read_form(request, staging, file_field="sample")
        fields = dict(form.fields)
        upload = form.file
        if upload is not None and upload.size > MAX_SAMPLE_BYTES:
            raise ApiError(ErrorKind.PAYLOAD_TOO_LARGE, "The sample is over 50 MB.")
    params = _parse(fields)
    if (upload is None) == (params.sample is None):
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Give the sample exactly once: a file part, or an audio URL.")
    if upload is not None and upload.size == 0:
        raise ApiError(ErrorKind.UNSUPPORTED_AUDIO_FORMAT, "The sample is empty.")
    digest = fingerprint("POST", "/v1/voice/clone", {"fields": params.model_dump(), "sample": upload and upload.sha256})
    return CloneInput(params, upload, digest)


def _parse(fields: dict[str, Any]) -> VoiceCloneParams:
    try:
        return VoiceCloneParams.model_validate(fields)
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None


async def _sample_bytes(services: Services, request: CloneInput, staging: Path) -> bytes:
    """The sample: the upload read from disk, or the `sample` URL fetched now (under the URL policy, at most 50 MB)."""
    if request.upload is not None:
        return await asyncio.to_thread(request.upload.path.read_bytes)
    staging.mkdir(parents=True, exist_ok=True)
    timeout = services.args.voice_cloner.sample_timeout_s if services.args.voice_cloner else 60.0
    try:
        result = await download(
            str(request.params.sample), staging / "sample", policy=services.url_policy, max_bytes=MAX_SAMPLE_BYTES,
            timeout_s=timeout,
        )  # fmt: skip
    except MediaTooLarge:
        raise ApiError(ErrorKind.PAYLOAD_TOO_LARGE, "The sample at this URL is over 50 MB.") from None
    except InvalidUrl as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"sample: {exc}") from None
    sample = await asyncio.to_thread(result.path.read_bytes)
    if not sample:
        raise ApiError(ErrorKind.UNSUPPORTED_AUDIO_FORMAT, "The sample is empty.")
    return sample


async def check_fields(services: Services, account: Account, params: VoiceCloneParams) -> str:
    """The canonical language code; raises for a taken name, a bad language, sample or callback URL, or no free slot."""
    if await services.voices.name_taken(account.id, params.voice_name):
        raise _name_taken(params.voice_name)
    lang = services.catalog.resolve(params.lang, "lang")
    if params.sample is not None:  # its syntax and an IP literal now; its host is resolved when it is fetched
        try:
            check_url(params.sample, services.url_policy, resolve=False)
        except InvalidUrl as exc:
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"sample: {exc}") from None
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


def _name_taken(name: str) -> ApiError:
    return ApiError(ErrorKind.VOICE_NAME_EXISTS, f"The account already has a voice named {name!r}.")


async def clone(services: Services, account: Account, request: CloneInput, staging: Path) -> Response:
    params = request.params
    lang = await check_fields(services, account, params)
    cloner = services.handle("voice_cloner")
    async with charged(services.quotas, account, [("voice_clones", 1)]):
        voice = await _clone_charged(services, account, request, staging, cloner, lang)
    return JSONResponse(voice.public())


async def _clone_charged(
    services: Services, account: Account, request: CloneInput, staging: Path, cloner: Any, lang: str
) -> Voice:
    """Everything costly, once the clone is paid for: the sample, its checks, the fit or the queued training."""
    params = request.params
    sample = await _sample_bytes(services, request, staging)
    prepared: PreparedSample = await call(
        cloner.prepare.remote(sample, params.noise_reduction), services.args.handle_timeout_s, "The sample check"
    )
    del sample  # up to 50 MB the ingress need not hold while the voice is fitted
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
    if params.enhance_quality or params.callback_url:
        return await _queue_training(services, account, voice, prepared, params)
    fitted: FittedVoice = await call(
        cloner.fit.remote(prepared, lang, gender, False), services.args.voice_clone_timeout_s, "Voice cloning"
    )
    voice = dataclasses.replace(
        voice, status=READY, completed_at=time.time(), quality_score=fitted.quality_score, engine=fitted.engine,
        style=fitted.style,
    )  # fmt: skip
    return await _create(services, account, voice)


async def _create(services: Services, account: Account, voice: Voice) -> Voice:
    try:
        return await services.voices.create(voice, account.voice_slots)
    except VoiceNameTaken:
        raise _name_taken(voice.voice_name) from None
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
    spec = VoiceJobSpec(
        voice_id=voice.voice_id,
        voice_name=voice.voice_name,
        lang=voice.lang,
        gender=voice.gender,
        enhance=params.enhance_quality,
        sample_key=stored.key,
        sample_meta=SampleFacts.of(prepared),
        created_at=voice.created_at,
        callback_url=params.callback_url,
    )
    try:
        task = await services.tasks.create(account.id, spec.stored(), kind="voice", request_id=request_id_var.get())
    except BaseException:
        await services.voices.delete(voice)
        raise
    return await services.voices.update(voice, task_id=task.task_id)


def _write_wav(path: Path, speech: np.ndarray) -> None:
    buffer = io.BytesIO()
    soundfile.write(buffer, speech, PREPARED_RATE, subtype="PCM_16", format="WAV")
    path.write_bytes(buffer.getvalue())
