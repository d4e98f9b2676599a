"""Schemas of ``POST /v1/tts`` (contract 4.7) and ``GET /v1/tts/voices`` (extension)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.specs.languages import LanguageCode
from engines.tts.synthesizer import (
    DEFAULT_EMOTION,
    DEFAULT_EMOTION_INTENSITY,
    DEFAULT_GENDER,
    DEFAULT_OUTPUT_FORMAT,
    DEFAULT_SPEED,
    SpeechRequest,
)

Emotion = Literal["neutral", "happy", "excited", "sad", "angry", "calm", "fearful", "surprised"]


class TtsRequest(BaseModel):
    # A JSON body: numbers must be numbers (no `true` or `"1.0"` for speed), booleans booleans.
    model_config = ConfigDict(extra="forbid", strict=True)

    text: str = Field(min_length=1, description="At most 5,000 characters (413 3001 beyond).")
    voice: str | None = Field(
        None, max_length=100, description="A native voice id (GET /v1/tts/voices) or a ready cloned voice_id; default: lang's."
    )
    lang: LanguageCode | None = Field(None, description="Default: the voice's language (required without a voice).")
    gender: Literal["female", "male"] = Field(DEFAULT_GENDER, description="Of the default voice, when no voice is given.")
    emotion: Emotion = DEFAULT_EMOTION
    emotion_intensity: float = Field(DEFAULT_EMOTION_INTENSITY, ge=0.0, le=1.0)
    speed: float = Field(DEFAULT_SPEED, ge=0.5, le=2.0)
    output_format: Literal["mp3", "wav", "ogg", "flac", "pcm"] = DEFAULT_OUTPUT_FORMAT

    def to_engine_request(self, lang: str, *, voice: str | None = None, style: Mapping[str, Any] | None = None) -> SpeechRequest:
        """The synthesizer's request once the edge resolved the language and the voice (native id or cloned style)."""
        return SpeechRequest(
            text=self.text,
            lang=lang,
            voice=voice,
            style=style,
            gender=self.gender,
            emotion=self.emotion,
            emotion_intensity=self.emotion_intensity,
            speed=self.speed,
            output_format=self.output_format,
        )


class NativeVoiceRecord(BaseModel):
    voice_id: str
    name: str
    languages: list[str]
    gender: str
    engine: str
    sample_rate: int


class TtsVoicesQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lang: str | None = Field(None, min_length=2, max_length=16)


class TtsVoices(BaseModel):
    voices: list[NativeVoiceRecord]
    total: int
    languages: list[str] = Field(description="Every language some voice speaks.")
