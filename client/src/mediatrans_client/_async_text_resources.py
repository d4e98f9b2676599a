"""Async resource groups for speech, grammar and game text (split from ``_async_resources``, which re-exports them)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mediatrans_client import _endpoints as ep
from mediatrans_client._chunks import abody_chunks, awrite_chunks
from mediatrans_client._fields import GAME_FIELDS, GRAMMAR_FIELDS, TTS_FIELDS, request_fields
from mediatrans_client._transport import AsyncTransport
from mediatrans_client.models import GrammarResult, LocalizationResult, NativeVoiceList
from mediatrans_client.types import AudioFormat, CheckType, ContentType, Domain, Emotion, Severity, SpeakerGender, Tone


class AsyncSpeech:
    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    def stream(
        self,
        text: str,
        voice: str | None = None,
        *,
        lang: str | None = None,
        gender: SpeakerGender | None = None,
        emotion: Emotion | None = None,
        emotion_intensity: float | None = None,
        speed: float | None = None,
        output_format: AudioFormat | None = None,
        extra: Mapping[str, Any] | None = None,
        chunk_size: int | None = None,
    ) -> AsyncIterator[bytes]:
        """The audio as it arrives: ``async for chunk in client.tts.stream(...)`` (no ``await`` before it)."""
        return abody_chunks(self._transport, ep.tts_spec(request_fields(locals(), TTS_FIELDS, extra)), chunk_size)

    async def synthesize(
        self,
        text: str,
        voice: str | None,
        output_path: str | Path,
        *,
        lang: str | None = None,
        gender: SpeakerGender | None = None,
        emotion: Emotion | None = None,
        emotion_intensity: float | None = None,
        speed: float | None = None,
        output_format: AudioFormat | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Path:
        spec = ep.tts_spec(request_fields(locals(), TTS_FIELDS, extra))
        return await awrite_chunks(abody_chunks(self._transport, spec), Path(output_path))

    async def voices(self, lang: str | None = None) -> NativeVoiceList:
        return NativeVoiceList.model_validate((await self._transport.request(ep.tts_voices_spec(lang))).json())


class AsyncGrammar:
    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def check(
        self,
        text: str,
        lang: str | None = None,
        *,
        auto_correct: bool | None = None,
        check_types: Sequence[CheckType] | None = None,
        severity: Severity | None = None,
        disable_rules: Sequence[str] | None = None,
        domain: Domain | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> GrammarResult:
        spec = ep.grammar_spec(request_fields(locals(), GRAMMAR_FIELDS, extra))
        return GrammarResult.model_validate((await self._transport.request(spec)).json())


class AsyncGame:
    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def localize(
        self,
        text: str,
        source_lang: str,
        target_langs: Sequence[str],
        *,
        content_type: ContentType = "ui",
        genre: str | None = None,
        max_length: int | None = None,
        tone: Tone | None = None,
        glossary_id: str | None = None,
        context: str | None = None,
        instructions: Sequence[str] | None = None,
        glossary_ids: Sequence[str] | None = None,
        memory_id: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> LocalizationResult:
        spec = ep.game_spec(request_fields(locals(), GAME_FIELDS, extra))
        return LocalizationResult.model_validate((await self._transport.request(spec)).json())
