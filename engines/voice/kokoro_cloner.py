"""The embedded profile's cloner: fits a Kokoro style to the sample (see :mod:`.fitting`).

Two speaker encoders with different training and features: ``fit_encoder``
(VoiceFilter d-vector by default) drives the search, ``judge_encoder``
(Resemblyzer GE2E by default) scores the result, so the reported
``quality_score`` is not the number the search maximised (a fitted voice
would flatter itself). Options: ``KokoroFitOptions``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from typing import Any, Self

import numpy as np
from pydantic import Field, model_validator

from engines.errors import EngineFailure, EngineUnavailable
from engines.speaker.encoder_factory import EncoderName, load_encoder
from engines.speaker.encoders import cosine
from engines.tts.base import VoiceStyle
from engines.tts.equalizer import apply_matching
from engines.tts.kokoro import SAMPLE_RATE, KokoroEngine, KokoroOptions
from engines.tts.kokoro_voices import gender_of
from engines.tts.prosody import engine_speed, shift_pitch
from engines.voice.cloner import PREPARED_RATE, FittedVoice, PreparedSample, VoiceCloneEngine
from engines.voice.fitting import FitBudget, StyleFitter
from engines.voice.matching import eq_curve, matched_probe, pitch_offset
from engines.voice.preparation import prepare_sample
from engines.voice.probes import judges_for, probes_for
from engines.voice.quality import calibrated_score
from engines.voice.sample import SampleLimits
from engines.voice.stock import stock_embeddings

log = logging.getLogger(__name__)

#: A signal-level match is kept only when it raises the fit encoder's similarity by more than this.
MATCH_MARGIN = 0.005


class KokoroFitOptions(KokoroOptions):
    """Kokoro's files and cores (``threads`` also runs the speaker encoders), the encoders, the fit budget."""

    fit_encoder: EncoderName = Field("voicefilter", description="Speaker encoder the style search maximises.")
    judge_encoder: EncoderName = Field(
        "resemblyzer", description="Speaker encoder that scores the result (quality_score); must differ from fit_encoder."
    )
    evaluations: int = Field(FitBudget.standard().evaluations, ge=1, description="Styles a standard fit synthesizes and scores.")
    enhanced_evaluations: int = Field(
        FitBudget.enhanced().evaluations, ge=1, description="Styles an enhanced fit synthesizes and scores."
    )
    min_snr_db: float = Field(SampleLimits().min_snr_db, description="Lowest estimated SNR (dB) of a sample as sent.")
    clean_snr_db: float = Field(
        SampleLimits().clean_snr_db, description="A sample at or above this SNR (dB) is not denoised: nothing to remove."
    )

    @model_validator(mode="after")
    def _independent_judge(self) -> Self:
        if self.fit_encoder == self.judge_encoder:
            raise ValueError("fit_encoder and judge_encoder must differ, or the score judges its own fit")
        return self


class KokoroCloner(VoiceCloneEngine):
    """Fits Kokoro styles; one fit at a time per replica (the search saturates the cores)."""

    name = "kokoro-fit"
    Options = KokoroFitOptions
    options: KokoroFitOptions

    def __init__(self, options: KokoroFitOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self.kokoro = KokoroEngine(KokoroOptions(model_dir=self.options.model_dir, threads=self.options.threads))
        self.standard = dataclasses.replace(FitBudget.standard(), evaluations=self.options.evaluations)
        self.enhanced = dataclasses.replace(FitBudget.enhanced(), evaluations=self.options.enhanced_evaluations)
        self.limits = SampleLimits(min_snr_db=self.options.min_snr_db, clean_snr_db=self.options.clean_snr_db)
        self._fit_lock = threading.Lock()
        self.fitter: StyleFitter | None = None

    def start(self) -> None:
        from engines.audio.denoise import DeepFilterDenoiser
        from engines.audio.vad import SileroVad

        self.kokoro.start()
        self.fit_encoder = load_encoder(self.options.fit_encoder, threads=self.options.threads)
        self.judge_encoder = load_encoder(self.options.judge_encoder, threads=self.options.threads)
        self.vad = SileroVad()
        self.denoiser = DeepFilterDenoiser()
        embeddings = stock_embeddings(self.kokoro, self.fit_encoder)
        genders = {name: gender_of(name) for name in self.kokoro.packs}
        self.fitter = StyleFitter(self.kokoro.packs, embeddings, genders)

    def health(self) -> None:
        if self.fitter is None:
            raise EngineUnavailable("the voice cloner is not started")
        self.kokoro.health()

    # ------------------------------------------------------------------ prepare

    def prepare(self, path: str, *, noise_reduction: bool = True) -> PreparedSample:
        return prepare_sample(path, self.vad, self.denoiser if noise_reduction else None, self.limits)

    # ------------------------------------------------------------------ fit

    def fit(self, sample: PreparedSample, lang: str, gender: str, *, enhance: bool = False) -> FittedVoice:
        self.health()
        assert self.fitter is not None
        started = time.monotonic()
        target = self.fit_encoder.embed(sample.speech, PREPARED_RATE)
        budget = self.enhanced if enhance else self.standard
        phonemes = [self.kokoro.phonemize(text, probe_lang) for probe_lang, text in probes_for(lang, budget.probes)]

        def speak(style: VoiceStyle) -> np.ndarray:
            pack = self.kokoro.blend(style)
            return np.concatenate([self.kokoro.speak_phonemes(p, pack) for p in phonemes])

        def embed(audio: np.ndarray) -> np.ndarray:
            return self.fit_encoder.embed(audio, SAMPLE_RATE)

        with self._fit_lock:
            result = self.fitter.fit(target, speak, embed, gender if gender in ("male", "female") else None, budget)
            probe = result.audio if result.audio is not None else speak(result.style)
            extra, matched = self._match(sample.speech, probe, target, result.similarity)
            style = VoiceStyle(result.style.weights, result.style.offset, base_lang=lang, extra=extra)
            raw_judge = self.judge(style, sample.speech, lang)
        if not np.isfinite(raw_judge):
            raise EngineFailure("the fitted voice could not be judged")
        return FittedVoice(
            engine="kokoro",
            style=style.to_json(),
            quality_score=calibrated_score(raw_judge),
            details={
                "judge_similarity": round(raw_judge, 4),
                "fit_similarity": round(result.similarity, 4),
                "matched_fit_similarity": round(matched, 4),
                "matching": sorted(extra),
                "best_stock": result.best_stock,
                "best_stock_fit_similarity": round(result.stock_similarity, 4),
                "evaluations": result.evaluations,
                "seconds": round(time.monotonic() - started, 2),
            },
        )

    def _match(self, sample: np.ndarray, probe: np.ndarray, target: np.ndarray, base: float) -> tuple[dict[str, Any], float]:
        """Pitch and spectral matching (:mod:`.matching`), each kept only where the fit encoder scores it higher."""
        semitones = pitch_offset(sample, PREPARED_RATE, probe, SAMPLE_RATE)
        gains = eq_curve(sample, PREPARED_RATE, probe, SAMPLE_RATE)
        options: dict[str, tuple[dict[str, Any], np.ndarray]] = {
            "pitch": ({"pitch_semitones": round(semitones, 2)}, matched_probe(probe, SAMPLE_RATE, semitones, [], PREPARED_RATE)),
            "eq": ({"eq_db": gains, "eq_rate": PREPARED_RATE}, matched_probe(probe, SAMPLE_RATE, 0.0, gains, PREPARED_RATE)),
            "both": (
                {"pitch_semitones": round(semitones, 2), "eq_db": gains, "eq_rate": PREPARED_RATE},
                matched_probe(probe, SAMPLE_RATE, semitones, gains, PREPARED_RATE),
            ),
        }
        best_extra: dict[str, Any] = {}
        best = base
        for extra, audio in options.values():
            score = cosine(self.fit_encoder.embed(audio, SAMPLE_RATE), target)
            if score > best + MATCH_MARGIN:
                best_extra, best = extra, score
        return best_extra, best

    def say(self, voice: str | VoiceStyle, text: str, lang: str) -> np.ndarray:
        """What ``voice`` says for ``text`` (a fitted voice with its matching applied), 24 kHz."""
        pack = self.kokoro.pack_for(voice, lang)
        extra = voice.extra if isinstance(voice, VoiceStyle) else {}
        semitones = float(extra.get("pitch_semitones", 0.0))
        audio = self.kokoro.speak_phonemes(self.kokoro.phonemize(text, lang), pack, engine_speed(1.0, semitones))
        return apply_matching(shift_pitch(audio, semitones), SAMPLE_RATE, extra)

    def judge(self, voice: str | VoiceStyle, reference: np.ndarray, lang: str) -> float:
        """Judge-encoder similarity of ``voice`` speaking the judge sentences to ``reference`` speech (16 kHz)."""
        judge_lang, sentences = judges_for(lang if lang in self.kokoro.plans else "en")
        # Each sentence spoken on its own (one synthesis of both was 0.5 s quicker but judged a fitted voice against
        # the stock ones less sharply: 0.728 vs 0.706 where separate sentences give 0.756 vs 0.690).
        audio = np.concatenate([self.say(voice, s, judge_lang) for s in sentences])
        return cosine(self.judge_encoder.embed(audio, SAMPLE_RATE), self.judge_encoder.embed(reference, PREPARED_RATE))
