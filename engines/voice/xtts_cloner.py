"""XTTS-v2 cloning (GPU cluster profile): the voice is the sample's speaker conditioning.

Sample checks, denoising and the judge are those of the embedded profile;
instead of a style search, XTTS computes ``gpt_cond_latent`` and
``speaker_embedding`` from the prepared speech, stored as the voice's style
and spoken by :class:`~engines.tts.xtts.XttsEngine`. Options: ``XttsCloneOptions``.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
from pydantic import Field

from engines.errors import EngineFailure, EngineUnavailable
from engines.speaker.encoder_factory import EncoderName, load_encoder
from engines.speaker.encoders import cosine
from engines.tts.base import VoiceStyle
from engines.tts.xtts import SAMPLE_RATE, XttsEngine, XttsOptions
from engines.voice.cloner import PREPARED_RATE, FittedVoice, PreparedSample, VoiceCloneEngine
from engines.voice.preparation import prepare_sample
from engines.voice.probes import judges_for
from engines.voice.quality import calibrated_score
from engines.voice.sample import SampleLimits

#: Compute threads of the judge encoder (the GPU does the cloning).
JUDGE_THREADS = 2


class XttsCloneOptions(XttsOptions):
    """XTTS's weights and device, the judge encoder, the sample check."""

    judge_encoder: EncoderName = Field("resemblyzer", description="Speaker encoder that scores the clone (quality_score).")
    min_snr_db: float = Field(SampleLimits().min_snr_db, description="Lowest estimated SNR (dB) of a sample as sent.")


class XttsCloner(VoiceCloneEngine):
    """Clones a voice as XTTS's speaker conditioning of the sample."""

    name = "xtts-clone"
    Options = XttsCloneOptions
    options: XttsCloneOptions

    def __init__(self, options: XttsCloneOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self.xtts = XttsEngine(XttsOptions(model_dir=self.options.model_dir, device=self.options.device))
        self.limits = SampleLimits(min_snr_db=self.options.min_snr_db)
        self._lock = threading.Lock()
        self.ready_ = False

    def start(self) -> None:
        from engines.audio.denoise import DeepFilterDenoiser
        from engines.audio.vad import SileroVad

        self.xtts.start()
        self.judge_encoder = load_encoder(self.options.judge_encoder, threads=JUDGE_THREADS)
        self.vad, self.denoiser = SileroVad(), DeepFilterDenoiser()
        self.ready_ = True

    def health(self) -> None:
        if not self.ready_:
            raise EngineUnavailable("the XTTS cloner is not started")

    def prepare(self, path: str, *, noise_reduction: bool = True) -> PreparedSample:
        return prepare_sample(path, self.vad, self.denoiser if noise_reduction else None, self.limits)

    def fit(self, sample: PreparedSample, lang: str, gender: str, *, enhance: bool = False) -> FittedVoice:
        import torch

        self.health()
        started = time.monotonic()
        audio = torch.tensor(sample.speech, dtype=torch.float32).unsqueeze(0)
        with self._lock, torch.inference_mode():
            gpt, speaker = self.xtts.model.get_conditioning_latents(audio_path=None, audio=audio, sr=PREPARED_RATE)  # type: ignore[call-arg]
        extra = {"xtts": {"gpt_cond_latent": gpt.cpu().tolist(), "speaker_embedding": speaker.cpu().tolist()}}
        style = VoiceStyle(weights={}, base_lang=lang, extra=extra)
        judge_lang, sentences = judges_for(lang)
        speech = np.concatenate([self.xtts.speak(s, style, judge_lang)[0] for s in sentences])
        raw = cosine(self.judge_encoder.embed(speech, SAMPLE_RATE), self.judge_encoder.embed(sample.speech, PREPARED_RATE))
        if not np.isfinite(raw):
            raise EngineFailure("the cloned voice could not be judged")
        details = {"judge_similarity": round(raw, 4), "seconds": round(time.monotonic() - started, 2)}
        return FittedVoice(engine="xtts", style=style.to_json(), quality_score=calibrated_score(raw), details=details)
