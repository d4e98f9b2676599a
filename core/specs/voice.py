"""The voice training job spec: one typed model from ``POST /v1/voice/clone`` to Redis to the worker.

An asynchronous clone (``enhance_quality`` or ``callback_url``) stores the
prepared speech in the file store and queues a ``voice`` task whose record
holds a :class:`VoiceJobSpec` as JSON: the edge builds it
(``serve_app.voice_clone``), the worker (``pipelines.voice_job``) and the
training's callback (``core.webhooks.payloads``) read that same model back.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Self

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from engines.voice.cloner import PreparedSample


class SampleFacts(BaseModel):
    """What the cloner found in the sample: a :class:`PreparedSample` without its speech."""

    duration_s: float = Field(description="Length of the sample as uploaded, seconds.")
    speech_s: float = Field(description="Seconds of speech found.")
    snr_db: float = Field(description="Estimated signal-to-noise ratio of the sample as uploaded.")
    gender: str = Field(description="male or female, estimated from the voice.")
    gender_confidence: float = Field(description="0.5 (undecided) to 1.")
    denoised: bool = Field(description="Whether noise reduction ran.")

    @classmethod
    def of(cls, prepared: PreparedSample) -> Self:
        return cls(**{f.name: getattr(prepared, f.name) for f in dataclasses.fields(prepared) if f.name != "speech"})

    def with_speech(self, speech: np.ndarray) -> PreparedSample:
        """The prepared sample again, its stored speech read back."""
        return PreparedSample(speech=speech, **self.model_dump())


class VoiceJobSpec(BaseModel):
    """What a ``voice`` task stores and its worker runs: the voice to train and where its speech waits.

    Attributes:
        voice_id, voice_name, lang, gender: the voice as created (``processing``); ``lang`` is canonical.
        enhance: ``enhance_quality``: the longer, higher-fidelity fit.
        sample_key: the file store key of the prepared speech (mono WAV at the cloner's rate).
        sample_meta: what the cloner found in the sample.
        created_at: when the voice was created (epoch seconds).
        callback_url: where the training's outcome is POSTed (contract 6).
    """

    # Stored records are read back by newer workers: fields they no longer know are ignored.
    model_config = ConfigDict(extra="ignore", frozen=True)

    voice_id: str
    voice_name: str
    lang: str
    gender: str
    enhance: bool = False
    sample_key: str
    sample_meta: SampleFacts
    created_at: float
    callback_url: str | None = None

    def stored(self) -> dict[str, Any]:
        """The JSON-ready form kept in the task record."""
        return self.model_dump(mode="json")
