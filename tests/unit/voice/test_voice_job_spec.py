"""The voice job spec: built at the edge, stored as JSON, read back by the worker and the callback."""

from __future__ import annotations

import numpy as np

from core.specs.voice import SampleFacts, VoiceJobSpec
from engines.voice.cloner import PreparedSample

PREPARED = PreparedSample(
    speech=np.zeros(160, dtype=np.float32), duration_s=12.0, speech_s=11.0, snr_db=30.0, gender="female",
    gender_confidence=0.8, denoised=True,
)  # fmt: skip


def spec() -> VoiceJobSpec:
    return VoiceJobSpec(
        voice_id="voice_1", voice_name="Ann", lang="en", gender="female", enhance=True, sample_key="voice_1/speech.wav",
        sample_meta=SampleFacts.of(PREPARED), created_at=1000.0, callback_url="https://hooks.example/v",
    )  # fmt: skip


def test_a_stored_spec_reads_back_identically() -> None:
    stored = spec().stored()
    assert VoiceJobSpec.model_validate(stored) == spec()
    assert stored["sample_meta"] == {
        "duration_s": 12.0, "speech_s": 11.0, "snr_db": 30.0, "gender": "female", "gender_confidence": 0.8, "denoised": True,
    }  # fmt: skip


def test_a_record_stored_before_the_model_reads_the_same() -> None:
    """Tasks already in Redis hold the same field names, written by hand."""
    record = {
        "voice_id": "voice_1", "voice_name": "Ann", "lang": "en", "gender": "female", "enhance": True,
        "sample_key": "voice_1/speech.wav", "created_at": 1000.0, "callback_url": "https://hooks.example/v",
        "sample_meta": {"duration_s": 12.0, "speech_s": 11.0, "snr_db": 30.0, "gender": "female",
                        "gender_confidence": 0.8, "denoised": True},
    }  # fmt: skip
    assert VoiceJobSpec.model_validate(record) == spec()
    assert spec().stored() == record


def test_fields_a_newer_worker_does_not_know_are_ignored() -> None:
    assert VoiceJobSpec.model_validate({**spec().stored(), "retired": 1}) == spec()


def test_the_worker_rebuilds_the_prepared_sample() -> None:
    speech = np.ones(320, dtype=np.float32)
    prepared = spec().sample_meta.with_speech(speech)
    assert prepared.speech is speech
    assert (prepared.duration_s, prepared.gender, prepared.denoised) == (12.0, "female", True)
