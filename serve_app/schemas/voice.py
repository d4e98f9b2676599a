"""Schemas of the voice endpoints (contract 2.2, 4.3–4.6) and of ``POST /v1/tts`` (4.7)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.specs.languages import LanguageCode

VoiceStatus = Literal["processing", "ready", "failed"]
Gender = Literal["male", "female", "unknown"]


class VoiceCloneParams(BaseModel):
    """Fields of ``POST /v1/voice/clone`` (multipart, with the `sample` file part; or JSON with `sample` as a URL)."""

    model_config = ConfigDict(extra="forbid")

    sample: str | None = Field(None, max_length=4096, description="JSON form: the audio URL (fetched under the URL policy).")
    voice_name: str = Field(min_length=1, max_length=64, description="Unique within the account (400 1006).")
    lang: str = Field(min_length=2, max_length=16, description="Sample language code (a supported code, else 400 1001).")
    description: str | None = Field(None, max_length=200)
    enhance_quality: bool = Field(False, description="Longer search, higher fidelity; makes the call asynchronous.")
    noise_reduction: bool = Field(True, description="Denoise the sample (DeepFilterNet) before fitting.")
    gender: Gender = Field("unknown", description="unknown: estimated from the sample and stored.")
    callback_url: str | None = Field(None, max_length=4096, description="Makes the call asynchronous; result POSTed here.")

    @model_validator(mode="before")
    @classmethod
    def _blank_is_default(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if v != "" or k == "voice_name"}
        return data


class VoiceError(BaseModel):
    code: str
    message: str


class VoiceObject(BaseModel):
    voice_id: str
    voice_name: str
    lang: str
    status: VoiceStatus
    gender: str = Field(description="male or female: as given, or estimated from the sample.")
    quality_score: float | None = Field(None, description="0–1; absent while processing and when failed.")
    sample_duration: float | None = None
    description: str | None = None
    created_at: str
    completed_at: str | None = None
    error: VoiceError | None = Field(None, description="When failed: code 3003 and why.")


class VoiceListQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: VoiceStatus | None = None
    lang: str | None = Field(None, min_length=2, max_length=16)
    limit: int = Field(50, ge=1, le=100, description="Voices per page.")
    cursor: str | None = Field(None, max_length=200, description="`next_cursor` of the previous page.")


class VoiceList(BaseModel):
    voices: list[VoiceObject]
    total: int = Field(description="Voices matching the filters (all pages).")
    quota: int = Field(description="Voices the account may hold at once.")
    used: int = Field(description="Slots in use (processing and ready voices).")
    next_cursor: str | None = Field(None, description="Pass as `cursor` for the next page; absent on the last page.")


class VoiceUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    voice_name: str | None = Field(None, min_length=1, max_length=64)
    description: str | None = Field(None, max_length=200)


class VoiceDeleted(BaseModel):
    voice_id: str
    deleted: bool


Emotion = Literal["neutral", "happy", "excited", "sad", "angry", "calm", "fearful", "surprised"]


class TtsRequest(BaseModel):
    # A JSON body: numbers must be numbers (no `true` or `"1.0"` for speed), booleans booleans.
    model_config = ConfigDict(extra="forbid", strict=True)

    text: str = Field(min_length=1, description="At most 5,000 characters (413 3001 beyond).")
    voice: str | None = Field(
        None, max_length=100, description="A native voice id (GET /v1/tts/voices) or a ready cloned voice_id; default: lang's."
    )
    lang: LanguageCode | None = Field(None, description="Default: the voice's language (required without a voice).")
    gender: Literal["female", "male"] = Field("female", description="Of the default voice, when no voice is given.")
    emotion: Emotion = "neutral"
    emotion_intensity: float = Field(0.5, ge=0.0, le=1.0)
    speed: float = Field(1.0, ge=0.5, le=2.0)
    output_format: Literal["mp3", "wav", "ogg", "flac", "pcm"] = "mp3"


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
