"""``POST /v1/tts`` (speech, streamed) and ``GET /v1/tts/voices`` (native voices).

The audio streams with chunked transfer, one chunk per sentence, so the first
bytes leave after the first sentence is synthesized. Everything that can be
refused is refused before the first byte, as a JSON error of the voice group:
400 1001 bad field or a language the voice cannot speak, 404 2005 unknown or
deleted cloned voice, 403 2003 another account's voice, 409 1003 a cloned
voice still processing (or failed), 413 3001 text over 5,000 characters,
429 4001 (the request rate, or the account's concurrent streams:
:mod:`serve_app.stream_slots`), 456 4002 (``tts_characters`` quota), 503 5002.
A client that goes away stops the synthesis.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pydantic
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from core.accounts import Account
from core.errors import ApiError, ErrorKind
from core.voices import FAILED, READY
from deployments.engines.tts.synthesizer import SpeechRequest
from deployments.engines.tts.text import MAX_TEXT_CHARS
from serve_app.auth import authenticate, services_of
from serve_app.bodies import parse_model, read_json
from serve_app.catalog import UnknownLanguage
from serve_app.responses import validation_error
from serve_app.routes.voice import VOICE_ID, owned_voice
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.voice import TtsRequest, TtsVoices, TtsVoicesQuery
from serve_app.services import Services
from serve_app.stream_slots import StreamSlot, tts_stream_limit

SPEAK_DOC = RouteDoc(
    summary="Speak text with a native or cloned voice (streamed audio)",
    description=(
        "Answers the audio itself (Content-Type by `output_format`), streamed sentence by sentence with chunked "
        "transfer. Response headers: X-Voice (the voice used), X-Sample-Rate. An account may have 4 streams at once "
        "(its `tts_streams` cap; one more: 429 4001 with Retry-After); a client that disconnects stops the synthesis. "
        "docs/tts.md lists engines per language, what each emotion does and how text is normalised."
    ),
    body=TtsRequest,
    errors=(
        ErrorKind.INVALID_PARAMETER,
        ErrorKind.UNSUPPORTED_MEDIA_TYPE,
        ErrorKind.NOT_FOUND,
        ErrorKind.FORBIDDEN,
        ErrorKind.VOICE_NOT_READY,
        ErrorKind.PAYLOAD_TOO_LARGE,
        ErrorKind.RATE_LIMITED,
        ErrorKind.QUOTA_EXCEEDED,
        ErrorKind.UNAVAILABLE,
    ),
    tag="tts",
)

VOICES_DOC = RouteDoc(
    summary="List the native voices",
    description="Each voice's id (the `voice` of POST /v1/tts), languages, gender, engine and sample rate.",
    query=TtsVoicesQuery,
    response=TtsVoices,
    errors=(ErrorKind.INVALID_PARAMETER, ErrorKind.RATE_LIMITED, ErrorKind.UNAVAILABLE),
    tag="tts",
)


@api_route("/v1/tts", "POST", SPEAK_DOC)
async def speak(request: Request) -> Response:
    account = await authenticate(request)
    services = services_of(request)
    raw = await read_json(request)
    if isinstance(raw, dict) and isinstance(raw.get("text"), str) and len(raw["text"]) > MAX_TEXT_CHARS:
        raise ApiError(ErrorKind.PAYLOAD_TOO_LARGE, f"text has {len(raw['text'])} characters; the limit is {MAX_TEXT_CHARS}.")
    body = parse_model(TtsRequest, raw)
    handle = _tts(services)
    speech = await _speech_request(services, account, body)
    plan: dict[str, Any] = await asyncio.wait_for(handle.plan.remote(speech), services.args.handle_timeout_s)
    slot = await services.tts_streams.acquire(account, tts_stream_limit(account))
    try:
        return await _start(services, account, handle, speech, plan, slot)
    except BaseException:
        await slot.release()
        raise


async def _start(
    services: Services, account: Account, handle: Any, speech: SpeechRequest, plan: dict[str, Any], slot: StreamSlot
) -> Response:
    """Charge the quota, start the replica's stream and answer once its first chunk is there."""
    amount = len(speech.text)
    await services.quotas.consume(account, "tts_characters", amount)
    chunks = handle.options(stream=True).stream.remote(speech)
    try:  # the first sentence before the headers: a request that cannot be spoken gets a JSON error, not a cut stream
        first = await asyncio.wait_for(chunks.__anext__(), services.args.handle_timeout_s)
    except StopAsyncIteration:
        first = b""
    except BaseException:
        chunks.cancel()
        await services.quotas.refund(account, "tts_characters", amount)
        raise
    headers = {"X-Voice": plan["voice"], "X-Sample-Rate": str(plan["sample_rate"]), "Cache-Control": "no-store"}
    return SpeechStream(first, chunks, slot, media_type=plan["content_type"], headers=headers)


class SpeechStream(StreamingResponse):
    """The replica's chunks relayed as they come.

    However the response ends (the last chunk, an error, the client going
    away and the request being cancelled), the replica's generator is
    cancelled, so it stops synthesizing after the sentence in progress, and
    the account's stream slot is released.
    """

    def __init__(self, first: bytes, chunks: Any, slot: StreamSlot, **kwargs: Any) -> None:
        super().__init__(self._relay(first), **kwargs)
        self._chunks = chunks
        self._slot = slot
        self._finished = not first

    async def _relay(self, first: bytes) -> AsyncIterator[bytes]:
        if first:
            yield first
            async for chunk in self._chunks:
                yield chunk
        self._finished = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if not self._finished:
                self._chunks.cancel()
            await self._slot.release()


async def _speech_request(services: Services, account: Account, body: TtsRequest) -> SpeechRequest:
    lang = _language(services, body.lang) if body.lang else None
    common = {"text": body.text, "gender": body.gender, "emotion": body.emotion, "emotion_intensity": body.emotion_intensity,
              "speed": body.speed, "output_format": body.output_format}  # fmt: skip
    if body.voice and VOICE_ID.fullmatch(body.voice):
        voice = await owned_voice(services, account, body.voice)
        if voice.status != READY:
            state = "failed to train; clone it again" if voice.status == FAILED else "still training; retry when it is ready"
            raise ApiError(ErrorKind.VOICE_NOT_READY, f"Voice {voice.voice_id} {state}.")
        return SpeechRequest(lang=lang or voice.lang, style={"engine": voice.engine, "style": voice.style}, **common)
    if body.voice and body.voice.startswith("voice_"):
        raise ApiError(ErrorKind.NOT_FOUND, "No such voice: the voice_id does not exist or was deleted.")
    if body.voice:
        if lang is None:
            lang = await _voice_language(services, body.voice)
        return SpeechRequest(lang=lang, voice=body.voice, **common)
    if lang is None:
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Give `voice`, `lang`, or both.")
    return SpeechRequest(lang=lang, **common)


def _language(services: Services, code: str) -> str:
    try:
        return services.catalog.canonical(code).split("-")[0]
    except UnknownLanguage:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"lang {code!r} is not a supported language code.") from None


async def _voice_language(services: Services, voice_id: str) -> str:
    for record in await _native_voices(services):
        if record["voice_id"] == voice_id:
            return str(record["languages"][0])
    raise ApiError(ErrorKind.INVALID_PARAMETER, f"Unknown voice {voice_id!r}; GET /v1/tts/voices lists them.")


@api_route("/v1/tts/voices", "GET", VOICES_DOC)
async def list_native_voices(request: Request) -> JSONResponse:
    await authenticate(request)
    services = services_of(request)
    try:
        query = TtsVoicesQuery.model_validate(dict(request.query_params))
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None
    voices = await _native_voices(services)
    languages = sorted({lang for v in voices for lang in v["languages"]})
    if query.lang:
        lang = _language(services, query.lang)
        voices = [v for v in voices if lang in v["languages"]]
    return JSONResponse({"voices": voices, "total": len(voices), "languages": languages})


async def _native_voices(services: Services) -> list[dict[str, Any]]:
    handle = _tts(services)

    async def load() -> list[dict[str, Any]]:
        voices: list[dict[str, Any]] = await asyncio.wait_for(handle.voices.remote(), services.args.handle_timeout_s)
        return voices

    voices: list[dict[str, Any]] = await services.tts_voices.get(load)
    return voices


def _tts(services: Services) -> Any:
    handle = services.handles.get("tts")
    if handle is None:
        raise ApiError(ErrorKind.UNAVAILABLE, "Speech synthesis is not deployed on this service.")
    return handle


ROUTES = [speak, list_native_voices]
