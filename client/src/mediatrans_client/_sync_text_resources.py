"""Sync resource groups for speech, grammar and game text (split from ``_sync_resources``, which re-exports them)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mediatrans_client import _endpoints as ep
from mediatrans_client._chunks import body_chunks, write_chunks
from mediatrans_client._fields import (
    GAME_FIELDS,
    GRAMMAR_FIELDS,
    TTS_FIELDS,
    request_fields,
)
from mediatrans_client._transport import SyncTransport
from mediatrans_client.models import (
    GrammarResult,
    LocalizationResult,
    NativeVoiceList,
)
from mediatrans_client.types import (
    AudioFormat,
    CheckType,
    ContentType,
    Domain,
    Emotion,
    Severity,
    SpeakerGender,
    Tone,
)


class Speech:
    """Text to speech (``POST /v1/tts``, contract 4.7): the audio as chunks, or into a file."""

    def __init__(self, transport: SyncTransport) -> None:
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
    ) -> Iterator[bytes]:
        """The audio of ``text`` spoken by ``voice`` (native id or cloned ``voice_id``), chunk by chunk as it arrives.

        The request is sent when iteration starts, so errors raise from the first ``next()``; stopping
        early closes the connection. ``chunk_size``: bytes per chunk (default: as received).
        """
        return body_chunks(self._transport, ep.tts_spec(request_fields(locals(), TTS_FIELDS, extra)), chunk_size)

    def synthesize(
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
        """Like :meth:`stream`, written to ``output_path`` (via ``.part``, renamed once complete)."""
        spec = ep.tts_spec(request_fields(locals(), TTS_FIELDS, extra))
        return write_chunks(body_chunks(self._transport, spec), Path(output_path))

    def voices(self, lang: str | None = None) -> NativeVoiceList:
        """The native voices (``GET /v1/tts/voices``), optionally of one language."""
        return NativeVoiceList.model_validate(self._transport.request(ep.tts_voices_spec(lang)).json())


class Grammar:
    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def check(
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
        """Check ``text`` (``lang`` detected when omitted); fields of contract 4.10."""
        spec = ep.grammar_spec(request_fields(locals(), GRAMMAR_FIELDS, extra))
        return GrammarResult.model_validate(self._transport.request(spec).json())


class Game:
    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def localize(
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
        """Translate game text into every target at once; fields of contract 4.9.

        Extensions: ``glossary_id``, and the steering fields ``context`` (not translated), ``instructions``,
        ``glossary_ids`` and ``memory_id`` (lines answered from the memory are listed in ``from_memory``).
        """
        spec = ep.game_spec(request_fields(locals(), GAME_FIELDS, extra))
        return LocalizationResult.model_validate(self._transport.request(spec).json())
