"""Schemas of the voice endpoints (contract 2.2, 4.3–4.6); those of ``POST /v1/tts`` are in ``serve_app.schemas.tts``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from serve_app.schemas.text_fields import free_text, single_line

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

    _voice_name = field_validator("voice_name")(single_line)
    _description = field_validator("description")(free_text)

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
    """The voice object of ``Voice.public()``: a field without a value is left out of the JSON, not sent as null."""

    voice_id: str
    voice_name: str
    lang: str
    status: VoiceStatus
    gender: str = Field(description="male or female: as given, or estimated from the sample.")
    created_at: str
    quality_score: float | None = Field(None, description="0–1; absent while processing and when failed.")
    sample_duration: float | None = None
    description: str | None = None
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

    _voice_name = field_validator("voice_name")(single_line)
    _description = field_validator("description")(free_text)


class VoiceDeleted(BaseModel):
    voice_id: str
    deleted: bool
