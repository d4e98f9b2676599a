"""XTTS-v2 cloning (GPU cluster profile): the voice is the sample's speaker conditioning.

Sample checks, denoising and the judge are those of the embedded profile;
instead of a style search, XTTS computes ``gpt_cond_latent`` and
``speaker_embedding`` from the prepared speech, stored as the voice's style
and spoken by :class:`~deployments.engines.tts.xtts.XttsEngine`.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from deployments.engines.errors import EngineFailure, EngineUnavailable
from deployments.engines.tts.base import VoiceStyle
from deployments.engines.tts.xtts import SAMPLE_RATE, XttsEngine
from deployments.engines.voice.cloner import PREPARED_RATE, FittedVoice, PreparedSample, VoiceCloneEngine
from deployments.engines.voice.encoders import cosine, load_encoder
from deployments.engines.voice.preparation import prepare_sample
from deployments.engines.voice.probes import judges_for
from deployments.engines.voice.quality import calibrated_score
from deployments.engines.voice.sample import SampleLimits


class XttsCloner(VoiceCloneEngine):
    name = "xtts-clone"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.xtts = XttsEngine(model_dir=options.get("model_dir", "/models/xtts-v2"), device=options.get("device", "cuda"))
        self.judge_name = str(options.get("judge_encoder", "resemblyzer"))
        self.limits = SampleLimits(min_snr_db=float(options.get("min_snr_db", SampleLimits().min_snr_db)))
        self._lock = threading.Lock()
        self.ready_ = False

    def start(self) -> None:
        from deployments.engines.voice.denoise import DeepFilterDenoiser
        from deployments.engines.voice.vad import SileroVad

        self.xtts.start()
        self.judge_encoder = load_encoder(self.judge_name, threads=2)
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
