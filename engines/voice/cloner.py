"""Voice cloning engines: check and prepare a sample, then fit a voice to it.

The interface has two steps so the HTTP edge can refuse a bad sample at once
(format, length, noise, no speech) even when training runs later as a job:

* :meth:`VoiceCloneEngine.prepare`: the checks of ``docs/voice-samples.md``,
  denoising when asked, the speech (voice activity) kept, gender estimated;
* :meth:`VoiceCloneEngine.fit`: the voice (an engine-specific style) and its
  ``quality_score``.

The embedded profile's :class:`~engines.voice.kokoro_cloner.KokoroCloner`
fits a Kokoro style; the cluster profile names an XTTS-class engine
(``xtts``), whose voice is the speaker conditioning of the sample itself.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Any

import numpy as np

from engines.base import Engine

#: Rate of the prepared speech handed from ``prepare`` to ``fit``.
PREPARED_RATE = 16_000


@dataclasses.dataclass(frozen=True)
class PreparedSample:
    """A checked sample, ready to fit.

    Attributes:
        speech: float32 mono at :data:`PREPARED_RATE`, the voiced parts only (denoised when asked).
        duration_s: length of the sample as uploaded.
        speech_s: seconds of speech found.
        snr_db: estimated signal-to-noise ratio of the sample as uploaded.
        gender: ``male`` / ``female`` estimated from the voice; ``gender_confidence`` 0.5–1.
        denoised: whether noise reduction ran.
    """

    speech: np.ndarray
    duration_s: float
    speech_s: float
    snr_db: float
    gender: str
    gender_confidence: float
    denoised: bool


@dataclasses.dataclass(frozen=True)
class FittedVoice:
    """A cloned voice as the TTS engines use it.

    Attributes:
        engine: the TTS engine that speaks it (``kokoro``).
        style: engine-specific JSON (a Kokoro blend: :class:`~engines.tts.base.VoiceStyle`).
        quality_score: the judge encoder's similarity of the voice's speech to the sample, 0–1.
        details: how the fit went (similarities, evaluations, seconds), for logs and benchmarks.
    """

    engine: str
    style: dict[str, Any]
    quality_score: float
    details: dict[str, Any]


class VoiceCloneEngine(Engine):
    """Base class of voice cloning engines."""

    @abc.abstractmethod
    def prepare(self, path: str, *, noise_reduction: bool = True) -> PreparedSample:
        """Check the sample file at ``path`` and extract its speech; raises ``BadVoiceSample`` subclasses."""

    @abc.abstractmethod
    def fit(self, sample: PreparedSample, lang: str, gender: str, *, enhance: bool = False) -> FittedVoice:
        """Fit a voice to ``sample``; ``enhance`` searches longer. Raises ``EngineFailure`` when no voice results."""
