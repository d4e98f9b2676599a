"""Voice cloning endpoints: ``/v1/voice/clone`` (create, list) and ``/v1/voice/clone/{voice_id}`` (read, rename, delete).

A create checks its fields, name, slot and plan quota before its sample is
fetched or decoded (``serve_app.voice_clone``). Errors use the voice code
table (contract 7): 400 1001 bad field, 400 1006 name taken, 400
1007/1008/1009 sample length/noise/no speech, 403 2003 another account's
voice, 403 2004 quota full, 404 2005 unknown or deleted voice, 413 3001
sample over 50 MB, 415 3002 not an accepted audio format (or a rate over
192 kHz), 429 4001, 456 4002, 503 5002.
"""

from __future__ import annotations

import pydantic
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.errors import ApiError, ErrorKind
from core.voices import VoiceNameTaken
from serve_app.auth import authenticate, services_of
from serve_app.bodies import parse_model, read_json
from serve_app.owned_voices import missing_voice, owned_voice
from serve_app.responses import validation_error
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.voice import VoiceCloneParams, VoiceDeleted, VoiceList, VoiceListQuery, VoiceObject, VoiceUpdate
from serve_app.video_submit import discard, upload_dir
from serve_app.voice_clone import clone, read_clone_request

_SAMPLE_ERRORS = (
    ErrorKind.INVALID_PARAMETER,
    ErrorKind.VOICE_NAME_EXISTS,
    ErrorKind.AUDIO_DURATION,
    ErrorKind.AUDIO_SNR_TOO_LOW,
    ErrorKind.NO_SPEECH,
    ErrorKind.VOICE_QUOTA_FULL,
    ErrorKind.PAYLOAD_TOO_LARGE,
    ErrorKind.UNSUPPORTED_AUDIO_FORMAT,
    ErrorKind.CLONE_FAILED,
    ErrorKind.RATE_LIMITED,
    ErrorKind.QUOTA_EXCEEDED,
    ErrorKind.IDEMPOTENCY_CONFLICT,
    ErrorKind.UNAVAILABLE,
)

CREATE_DOC = RouteDoc(
    summary="Clone a voice from a 10–60 s sample",
    description=(
        "multipart/form-data with the `sample` file part (WAV, MP3, FLAC, M4A or OGG, judged by content; at most 50 MB; "
        "16 kHz to 192 kHz), or a JSON body whose `sample` is an audio URL (fetched only once the fields, name, slot and "
        "plan quota passed). Without `enhance_quality` and `callback_url` "
        "the voice is fitted now and returned `ready` with `quality_score`; otherwise it is returned `processing` and "
        "trained as a job (the result is POSTed to `callback_url`, signed like video callbacks). docs/voice.md."
    ),
    body=VoiceCloneParams,
    body_content_type="multipart/form-data",
    form_files=("sample",),
    response=VoiceObject,
    errors=_SAMPLE_ERRORS,
    tag="voice",
    idempotent_create=True,
)

LIST_DOC = RouteDoc(
    summary="List the account's cloned voices",
    description="Oldest first, filtered by `status` and `lang`; `next_cursor` continues the list (absent on the last page).",
    query=VoiceListQuery,
    response=VoiceList,
    errors=(ErrorKind.INVALID_PARAMETER, ErrorKind.RATE_LIMITED),
    tag="voice",
)

GET_DOC = RouteDoc(
    summary="Read one cloned voice",
    response=VoiceObject,
    errors=(ErrorKind.NOT_FOUND, ErrorKind.FORBIDDEN, ErrorKind.RATE_LIMITED),
    tag="voice",
)

UPDATE_DOC = RouteDoc(
    summary="Rename a cloned voice or change its description",
    description="Only `voice_name` and `description` change (an empty description removes it). Returns the whole voice.",
    body=VoiceUpdate,
    response=VoiceObject,
    errors=(ErrorKind.INVALID_PARAMETER, ErrorKind.UNSUPPORTED_MEDIA_TYPE, ErrorKind.VOICE_NAME_EXISTS, ErrorKind.NOT_FOUND,
            ErrorKind.FORBIDDEN, ErrorKind.RATE_LIMITED),
    tag="voice",
)  # fmt: skip

DELETE_DOC = RouteDoc(
    summary="Delete a cloned voice (irreversible; frees its quota slot)",
    response=VoiceDeleted,
    errors=(ErrorKind.NOT_FOUND, ErrorKind.FORBIDDEN, ErrorKind.RATE_LIMITED),
    tag="voice",
)


@api_route("/v1/voice/clone", "POST", CREATE_DOC)
async def create_voice(request: Request) -> Response:
    account = await authenticate(request)
    services = services_of(request)
    staging = upload_dir(services)
    try:
        clone_input = await read_clone_request(request, staging)

        async def create() -> Response:
            return await clone(services, account, clone_input, staging)

        return await services.idempotency.run(request, account.id, clone_input.fingerprint, create)
    finally:
        discard(staging)


@api_route("/v1/voice/clone", "GET", LIST_DOC)
async def list_voices(request: Request) -> JSONResponse:
    account = await authenticate(request)
    services = services_of(request)
    try:
        query = VoiceListQuery.model_validate(dict(request.query_params))
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None
    lang = query.lang
    if lang is not None:
        lang = services.catalog.resolve(lang, "lang")
    try:
        page = await services.voices.page(account.id, status=query.status, lang=lang, limit=query.limit, cursor=query.cursor)
    except ValueError as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"cursor: {exc}") from None
    body = VoiceList(
        voices=[VoiceObject.model_validate(v.public()) for v in page.voices],
        total=page.total,
        quota=account.voice_slots,
        used=await services.voices.slots_used(account.id),
        next_cursor=page.next_cursor or None,
    )
    return JSONResponse(body.model_dump(mode="json", exclude_none=True))  # absent, not null: no next page, unset fields


@api_route("/v1/voice/clone/{voice_id}", "GET", GET_DOC)
async def get_voice(request: Request) -> JSONResponse:
    account = await authenticate(request)
    voice = await owned_voice(services_of(request), account, request.path_params["voice_id"])
    return JSONResponse(voice.public())


@api_route("/v1/voice/clone/{voice_id}", "PUT", UPDATE_DOC)
async def update_voice(request: Request) -> JSONResponse:
    account = await authenticate(request)
    services = services_of(request)
    voice = await owned_voice(services, account, request.path_params["voice_id"])
    body = parse_model(VoiceUpdate, await read_json(request))
    if body.voice_name is None and body.description is None:
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Give voice_name and/or description.")
    try:
        changed = await services.voices.rename(voice, body.voice_name, body.description)
    except VoiceNameTaken:
        raise ApiError(ErrorKind.VOICE_NAME_EXISTS, f"The account already has a voice named {body.voice_name!r}.") from None
    except KeyError:
        raise missing_voice() from None
    return JSONResponse(changed.public())


@api_route("/v1/voice/clone/{voice_id}", "DELETE", DELETE_DOC)
async def delete_voice(request: Request) -> JSONResponse:
    account = await authenticate(request)
    services = services_of(request)
    voice = await owned_voice(services, account, request.path_params["voice_id"])
    if not await services.voices.delete(voice):
        raise missing_voice()
    return JSONResponse(VoiceDeleted(voice_id=voice.voice_id, deleted=True).model_dump(mode="json"))


ROUTES = [create_voice, list_voices, get_voice, update_voice, delete_voice]
