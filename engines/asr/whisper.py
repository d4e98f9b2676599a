"""Whisper speech recognition through faster-whisper (CTranslate2).

CPU profile: a small model (base, tiny.en) in int8, sequential decoding, long
audio cut into chunks that run in parallel. GPU profile: large-v3 in float16
with ``batch_size`` > 0 (faster-whisper's BatchedInferencePipeline).

Models are local folders only (``local_files_only``); nothing is downloaded.

Options: ``WhisperOptions``.
"""

from __future__ import annotations

import os
from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from engines.asr.audio import (
    AudioInput,
    as_audio_array,
    duration_s,
    split_at_silences,
)
from engines.asr.types import Segment, Transcript, Word
from engines.base import Engine
from engines.errors import (
    EngineFailure,
    EngineUnavailable,
    UnsupportedLanguage,
)
from engines.options import EngineOptions, ProjectPath

#: Whisper decodes 30 s windows.
WINDOW_S = 30.0

#: The API's speech languages (ISO 639-1); an engine reports the subset it serves.
# fmt: off
API_LANGUAGES: frozenset[str] = frozenset({
    "af", "sq", "ar", "hy", "az", "bn", "bg", "my", "ca", "zh", "hr", "cs", "da", "nl", "en", "et", "fi",
    "fr", "ka", "de", "el", "he", "hi", "hu", "is", "id", "it", "ja", "ko", "lv", "lt", "ms", "no", "fa",
    "pl", "pt", "ro", "ru", "sr", "sk", "sl", "es", "sw", "sv", "tl", "th", "tr", "uk", "vi",
})
# fmt: on

#: Whisper codes that differ from the API's (others are the same ISO 639-1 code).
WHISPER_ALIASES: dict[str, str] = {
    "nn": "no",  # Nynorsk is written Norwegian
    "yue": "zh",  # Cantonese belongs to the Chinese macrolanguage
    "iw": "he",  # legacy code for Hebrew
    "jw": "jv",  # Whisper's code for Javanese (not an API language)
}


def to_api_language(whisper_code: str) -> str | None:
    """API code for a Whisper language code, None when the API does not serve it."""
    code = WHISPER_ALIASES.get(whisper_code, whisper_code)
    return code if code in API_LANGUAGES else None


def api_languages(whisper_codes: list[str] | tuple[str, ...] | frozenset[str]) -> frozenset[str]:
    """The API languages a model with these Whisper languages can recognise."""
    mapped = (to_api_language(code) for code in whisper_codes)
    return frozenset(code for code in mapped if code is not None)


def to_whisper_language(api_code: str, whisper_codes: frozenset[str]) -> str:
    """The Whisper code to decode ``api_code`` with (its own code first, then an alias)."""
    if api_code not in API_LANGUAGES:
        raise UnsupportedLanguage(f"not an API speech language: {api_code}", source=api_code)
    if api_code in whisper_codes:
        return api_code
    for whisper_code, target in WHISPER_ALIASES.items():
        if target == api_code and whisper_code in whisper_codes:
            return whisper_code
    raise UnsupportedLanguage(f"speech language not supported: {api_code}", source=api_code)


class WhisperOptions(EngineOptions):
    """How the Whisper engine loads and decodes; echoed in every ``Transcript``.

    ``compute_type`` left out picks ``int8`` on the CPU and ``float16`` on the GPU;
    the resolved value is what is echoed.
    """

    model_dir: ProjectPath = Field(
        min_length=1, description="Folder of a CTranslate2 Whisper model (model.bin, config.json, tokenizer.json, vocabulary.*)."
    )
    device: Literal["cpu", "cuda"] = Field("cpu", description="Where CTranslate2 runs the model.")
    compute_type: str | None = Field(
        None, min_length=1, description="CTranslate2 quantisation; left out: int8 on the CPU, float16 on the GPU."
    )
    cpu_threads: int = Field(0, ge=0, description="Intra-op threads per decode; 0 lets CTranslate2 choose.")
    num_workers: int = Field(1, ge=1, description="Decodes that may run at once from different threads.")
    beam_size: int = Field(5, ge=1, description="Beam search width (1 = greedy).")
    batch_size: int = Field(
        0,
        ge=0,
        description="0 decodes the 30 s windows one after another; more decodes that many together "
        "(BatchedInferencePipeline, GPU), windows cut by the VAD or, without it, at silences.",
    )
    vad_filter: bool = Field(True, description="Skip non-speech with Silero VAD before decoding.")
    word_timestamps: bool = Field(True, description="Return per-word times and probabilities.")
    temperature_fallback: bool = Field(
        True,
        description="Decode again at rising temperatures when a result looks like a loop (Whisper's own rule); off, "
        "one greedy or beam pass per window: speech Whisper hardly understands costs one decode, not six.",
    )

    @field_validator("model_dir", mode="before")
    @classmethod
    def _path_text(cls, value: Any) -> Any:
        return os.fspath(value) if isinstance(value, os.PathLike) else value

    @model_validator(mode="before")
    @classmethod
    def _compute_type_for_device(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("compute_type") is None:
            return {**data, "compute_type": "float16" if data.get("device") == "cuda" else "int8"}
        return data


class WhisperEngine(Engine):
    """Speech to timed words with a local faster-whisper model."""

    name = "faster-whisper"
    Options = WhisperOptions
    options: WhisperOptions

    def __init__(self, options: WhisperOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._model: Any = None
        self._batched: Any = None
        self._whisper_codes: frozenset[str] = frozenset()

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> None:
        model_bin = os.path.join(self.options.model_dir, "model.bin")
        if not os.path.isfile(model_bin):
            cause = FileNotFoundError(model_bin)
            raise EngineUnavailable(f"no Whisper model at {self.options.model_dir}") from cause
        try:
            from faster_whisper import BatchedInferencePipeline, WhisperModel

            model = WhisperModel(
                self.options.model_dir,
                device=self.options.device,
                compute_type=self.options.compute_type,
                cpu_threads=self.options.cpu_threads,
                num_workers=self.options.num_workers,
                local_files_only=True,
            )
        except Exception as exc:  # ImportError, RuntimeError from CTranslate2, bad files
            raise EngineUnavailable(f"cannot load Whisper model {self.options.model_dir}: {exc}") from exc
        self._use_model(model, BatchedInferencePipeline(model) if self.options.batch_size > 0 else None)

    def _use_model(self, model: Any, batched: Any = None) -> None:
        """Serve with a loaded ``WhisperModel`` (and its batched pipeline, if any)."""
        self._model = model
        self._batched = batched
        self._whisper_codes = frozenset(model.supported_languages)

    def health(self) -> None:
        if self._model is None:
            raise EngineUnavailable("Whisper engine not started")

    def shutdown(self) -> None:
        self._model = None
        self._batched = None

    # ----------------------------------------------------------------- languages

    def languages(self) -> frozenset[str]:
        """API codes of the languages this model recognises ({"en"} for *.en models)."""
        self.health()
        return api_languages(self._whisper_codes)

    @property
    def multilingual(self) -> bool:
        self.health()
        return len(self._whisper_codes) > 1

    def detect_language(self, audio: AudioInput) -> tuple[str, float]:
        """Most probable served language of the speech and its probability.

        Whisper's probabilities are summed per API code (``nn`` counts for ``no``)
        and the best served language wins, so the answer is always transcribable.
        """
        self.health()
        if not self.multilingual:
            return "en", 1.0
        totals = self.language_probabilities(audio)
        if not totals:
            raise UnsupportedLanguage("no served language detected in the speech")
        code = max(totals, key=totals.__getitem__)
        return code, min(totals[code], 1.0)

    def language_probabilities(self, audio: AudioInput) -> dict[str, float]:
        """Whisper's probability of each served language for the speech (its first 30 s), summed per API code."""
        self.health()
        array = as_audio_array(audio)
        try:
            _, _, ranked = self._model.detect_language(array, vad_filter=self.options.vad_filter)
        except Exception as exc:
            raise EngineFailure(f"language detection failed: {exc}") from exc
        totals: dict[str, float] = {}
        for whisper_code, prob in ranked:
            code = to_api_language(whisper_code)
            if code is not None:
                totals[code] = totals.get(code, 0.0) + float(prob)
        return totals

    # ----------------------------------------------------------------- transcription

    def transcribe(
        self, audio: AudioInput, language: str | None = None, offset: float = 0.0, initial_prompt: str | None = None
    ) -> Transcript:
        """Timed segments and words of the speech in ``audio``.

        Args:
            audio: a media file path or 16 kHz mono float32 samples.
            language: API code of the speech; None detects it first.
            offset: seconds added to every timestamp (the chunk's start in the file).
            initial_prompt: text that conditions the decoder (names, spelling).
        """
        self.health()
        if language is not None:
            to_whisper_language(language, self._whisper_codes)  # fail before decoding audio
        array = as_audio_array(audio)
        probability = 1.0
        if language is None:
            language, probability = self.detect_language(array)
        whisper_code = to_whisper_language(language, self._whisper_codes)
        segments = self._decode(array, whisper_code, initial_prompt)
        return Transcript(
            language=language,
            language_probability=probability,
            duration=duration_s(array),
            offset=offset,
            engine=self.name,
            options=self.options,
            segments=tuple(_segment(s, offset) for s in segments),
        )

    def _decode(self, array: np.ndarray, whisper_code: str, initial_prompt: str | None) -> list[Any]:
        cfg = self.options
        kwargs: dict[str, Any] = {
            "language": whisper_code,
            "beam_size": cfg.beam_size,
            "word_timestamps": cfg.word_timestamps,
            "vad_filter": cfg.vad_filter,
            "initial_prompt": initial_prompt,
        }
        if not cfg.temperature_fallback:
            kwargs["temperature"] = 0.0
        try:
            if self._batched is not None:
                if not cfg.vad_filter:  # the batched pipeline needs windows: cut them at silences
                    kwargs["clip_timestamps"] = _silence_windows(array)
                segments, _ = self._batched.transcribe(array, batch_size=cfg.batch_size, **kwargs)
            else:
                segments, _ = self._model.transcribe(array, **kwargs)
            return list(segments)  # decoding happens while iterating
        except Exception as exc:
            raise EngineFailure(f"Whisper decoding failed: {exc}") from exc


def _silence_windows(array: np.ndarray) -> list[dict[str, float]]:
    """Whisper-sized (<= 30 s) windows cut in pauses, as BatchedInferencePipeline clips."""
    return [{"start": c.start, "end": c.end} for c in split_at_silences(array, target_chunk_s=25.0, max_chunk_s=WINDOW_S)]


def _segment(raw: Any, offset: float) -> Segment:
    words = tuple(
        Word(start=float(w.start) + offset, end=float(w.end) + offset, text=w.word, probability=float(w.probability))
        for w in (raw.words or ())
    )
    return Segment(start=float(raw.start) + offset, end=float(raw.end) + offset, text=raw.text.strip(), words=words)
