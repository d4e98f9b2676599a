"""``POST /v1/tts`` (speech, streamed) and ``GET /v1/tts/voices`` (native voices).

The audio streams with chunked transfer, one chunk per sentence, so the first
bytes leave after the first sentence is synthesized. Everything that can be
refused is refused before the first byte, as a JSON error of the voice group:
400 1001 bad field or a language the voice cannot speak, 404 2005 unknown or
deleted cloned voice, 403 2003 another account's voice, 409 1003 a cloned
voice still processing (or failed), 413 3001 text over 5,000 characters,
429 4001 (the request rate, or the account's concurrent streams:
:mod:`serve_app.stream_slots`), 456 4002 (``tts_characters`` quota), 503 5002.
A client that goes away stops the synthesis (:mod:`serve_app.speech`).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.errors import ErrorKind
from serve_app.auth import authenticate, services_of
from serve_app.bodies import parse_model, read_json
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.tts import TtsRequest, TtsVoices, TtsVoicesQuery
from serve_app.speech import native_voices, read_speech_request, synthesize

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
    body = read_speech_request(await read_json(request))
    return await synthesize(services_of(request), account, body)


@api_route("/v1/tts/voices", "GET", VOICES_DOC)
async def list_native_voices(request: Request) -> JSONResponse:
    await authenticate(request)
    query = parse_model(TtsVoicesQuery, dict(request.query_params))
    voices = await native_voices(services_of(request), query)
    return JSONResponse(voices.model_dump(mode="json"))


ROUTES = [speak, list_native_voices]
