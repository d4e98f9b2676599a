"""From an uploaded sample to the speech a cloner fits: checks, denoising, voiced parts, gender."""

from __future__ import annotations

import numpy as np

from engines.audio.denoise import DeepFilterDenoiser
from engines.audio.vad import SileroVad
from engines.speaker.gender import estimate_gender
from engines.voice.cloner import PREPARED_RATE, PreparedSample
from engines.voice.sample import SampleLimits, inspect_sample


def prepare_sample(path: str, vad: SileroVad, denoiser: DeepFilterDenoiser | None, limits: SampleLimits) -> PreparedSample:
    """Check the sample (docs/voice-samples.md), denoise it when ``denoiser`` is given, keep its speech."""
    checked = inspect_sample(path, vad, denoiser, limits)
    clip = checked.clip.resampled(PREPARED_RATE)
    speech = voiced(clip.samples, PREPARED_RATE, checked.speech)
    gender, confidence = estimate_gender(speech, PREPARED_RATE)
    return PreparedSample(
        speech=speech,
        duration_s=checked.info.duration_s,
        speech_s=checked.speech_s,
        snr_db=checked.snr_db,
        gender=gender,
        gender_confidence=confidence,
        denoised=checked.denoised,
    )


def voiced(samples: np.ndarray, rate: int, segments: list[tuple[float, float]], pad_s: float = 0.1) -> np.ndarray:
    """The speech segments joined, with a little context each side."""
    parts = [samples[max(0, int((a - pad_s) * rate)) : int((b + pad_s) * rate)] for a, b in segments]
    joined = np.concatenate([p for p in parts if len(p)]) if any(len(p) for p in parts) else samples
    return np.asarray(joined, dtype=np.float32)
