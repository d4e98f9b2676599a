"""Speech synthesis at the edge: ``POST /v1/tts`` (streamed) and ``GET /v1/tts/voices``.

Everything that can be refused is refused before the first byte: the text's
length (413 3001) before the body is validated, then the voice (a cloned one
must be the account's and ready; a native one must exist), the ``TTS``
deployment's plan, a stream slot of the account (:mod:`serve_app.stream_slots`)
and the ``tts_characters`` quota. The response waits for the first sentence,
so a request that cannot be spoken gets a JSON error rather than a cut stream;
the rest is relayed as the replica yields it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from core.accounts import Account
from core.billing import charged
from core.errors import ApiError, ErrorKind
from core.voices import FAILED, READY
from engines.tts.synthesizer import SpeechPlan, SpeechRequest
from engines.tts.text import MAX_TEXT_CHARS
from serve_app.bodies import parse_model
from serve_app.deployment_calls import call, timed_out
from serve_app.owned_voices import VOICE_ID, owned_voice
from serve_app.schemas.tts import NativeVoiceRecord, TtsRequest, TtsVoices, TtsVoicesQuery
from serve_app.services import Services
from serve_app.stream_slots import StreamSlot, tts_stream_limit


def read_speech_request(raw: Any) -> TtsRequest:
    """The validated body; raw is the parsed JSON."""
    if isinstance(raw, dict) and isinstance(raw.get("text"), str) and len(raw["text"]) > MAX_TEXT_CHARS:
        raise ApiError(ErrorKind.PAYLOAD_TOO_LARGE, f"text has {len(raw['text'])} characters; the limit is {MAX_TEXT_CHARS}.")
    return parse_model(TtsRequest, raw)


async def synthesize(services: Services, account: Account, body: TtsRequest) -> Response:
    """The streamed audio of ``body``, holding one of the account's stream slots until it ends."""
    handle = services.handle("tts")
    speech = await _speech_request(services, account, body)
    plan: SpeechPlan = await call(handle.plan.remote(speech), services.args.handle_timeout_s, "Speech planning")
    slot = await services.tts_streams.acquire(account, tts_stream_limit(account))
    try:
        return await _start(services, account, handle, speech, plan, slot)
    except BaseException:
        await slot.release()
        raise


async def native_voices(services: Services, query: TtsVoicesQuery) -> TtsVoices:
    """The native voices (those speaking ``query.lang``, when given) and every language some voice speaks."""
    voices = await _native_voices(services)
    languages = sorted({lang for v in voices for lang in v["languages"]})
    if query.lang:
        lang = _language(services, query.lang)
        voices = [v for v in voices if lang in v["languages"]]
    records = [NativeVoiceRecord.model_validate(v) for v in voices]
    return TtsVoices(voices=records, total=len(records), languages=languages)


async def _start(
    services: Services, account: Account, handle: Any, speech: SpeechRequest, plan: SpeechPlan, slot: StreamSlot
) -> Response:
    """Charge the quota, start the replica's stream and answer once its first chunk is there."""
    async with charged(services.quotas, account, [("tts_characters", len(speech.text))]):
        chunks = handle.options(stream=True).stream.remote(speech, plan)
        try:  # the first sentence before the headers: a request that cannot be spoken gets a JSON error, not a cut stream
            first = await asyncio.wait_for(chunks.__anext__(), services.args.handle_timeout_s)
        except StopAsyncIteration:
            first = b""
        except TimeoutError:
            chunks.cancel()
            raise timed_out("Speech synthesis", services.args.handle_timeout_s) from None
        except BaseException:
            chunks.cancel()
            raise
    headers = {"X-Voice": plan.voice_id, "X-Sample-Rate": str(plan.sample_rate), "Cache-Control": "no-store"}
    return SpeechStream(first, chunks, slot, media_type=plan.content_type, headers=headers)


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
    """The synthesizer's request: a cloned voice (ready, the account's), a native voice, or the language's default."""
    lang = _language(services, body.lang) if body.lang else None
    if body.voice and VOICE_ID.fullmatch(body.voice):
        voice = await owned_voice(services, account, body.voice)
        if voice.status != READY:
            state = "failed to train; clone it again" if voice.status == FAILED else "still training; retry when it is ready"
            raise ApiError(ErrorKind.VOICE_NOT_READY, f"Voice {voice.voice_id} {state}.")
        return body.to_engine_request(lang or voice.lang, style={"engine": voice.engine, "style": voice.style})
    if body.voice and body.voice.startswith("voice_"):
        raise ApiError(ErrorKind.NOT_FOUND, "No such voice: the voice_id does not exist or was deleted.")
    if body.voice:
        if lang is None:
            lang = await _voice_language(services, body.voice)
        return body.to_engine_request(lang, voice=body.voice)
    if lang is None:
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Give `voice`, `lang`, or both.")
    return body.to_engine_request(lang)


def _language(services: Services, code: str) -> str:
    return services.catalog.resolve(code, "lang", as_primary=True)


async def _voice_language(services: Services, voice_id: str) -> str:
    for record in await _native_voices(services):
        if record["voice_id"] == voice_id:
            return str(record["languages"][0])
    raise ApiError(ErrorKind.INVALID_PARAMETER, f"Unknown voice {voice_id!r}; GET /v1/tts/voices lists them.")


async def _native_voices(services: Services) -> list[dict[str, Any]]:
    handle = services.handle("tts")

    async def load() -> list[dict[str, Any]]:
        voices: list[dict[str, Any]] = await call(handle.voices.remote(), services.args.handle_timeout_s, "The voice list")
        return voices

    voices: list[dict[str, Any]] = await services.tts_voices.get(load)
    return voices
