"""Whisper speech recognition through faster-whisper (CTranslate2).

CPU profile: a small model (base, tiny.en) in int8, sequential decoding, long
audio cut into chunks that run in parallel. GPU profile: large-v3 in float16
with ``batch_size`` > 0 (faster-whisper's BatchedInferencePipeline).

Models are local folders only (``local_files_only``); nothing is downloaded.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from deployments.engines.asr.audio import (
    AudioInput,
    as_audio_array,
    duration_s,
    split_at_silences,
)
from deployments.engines.asr.types import Segment, Transcript, Word
from deployments.engines.base import Engine
from deployments.engines.errors import (
    EngineFailure,
    EngineUnavailable,
    UnsupportedLanguage,
)

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


@dataclass(frozen=True)
class WhisperOptions:
    """How the Whisper engine loads and decodes; echoed in every ``Transcript``.

    Attributes:
        model_dir: folder of a CTranslate2 Whisper model (model.bin, config.json,
            tokenizer.json, vocabulary.*).
        device: "cpu" or "cuda".
        compute_type: CTranslate2 quantisation; None picks "int8" on CPU and
            "float16" on GPU (the resolved value is what is echoed).
        cpu_threads: intra-op threads per decode; 0 lets CTranslate2 choose.
        num_workers: decodes that may run at once from different threads.
        beam_size: beam search width (1 = greedy).
        batch_size: 0 decodes the 30 s windows one after another; > 0 decodes
            that many windows together (BatchedInferencePipeline, GPU); the
            windows are cut by the VAD, or at silences when ``vad_filter`` is off.
        vad_filter: skip non-speech with Silero VAD before decoding.
        word_timestamps: return per-word times and probabilities.
    """

    model_dir: str
    device: str = "cpu"
    compute_type: str | None = None
    cpu_threads: int = 0
    num_workers: int = 1
    beam_size: int = 5
    batch_size: int = 0
    vad_filter: bool = True
    word_timestamps: bool = True

    def __post_init__(self) -> None:
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"device must be 'cpu' or 'cuda', got {self.device!r}")
        if self.compute_type is None:
            object.__setattr__(self, "compute_type", "int8" if self.device == "cpu" else "float16")
        if self.cpu_threads < 0 or self.num_workers < 1 or self.beam_size < 1 or self.batch_size < 0:
            raise ValueError("need cpu_threads >= 0, num_workers >= 1, beam_size >= 1, batch_size >= 0")
        object.__setattr__(self, "model_dir", os.fspath(self.model_dir))


class WhisperEngine(Engine):
    """Speech to timed words with a local faster-whisper model."""

    name = "faster-whisper"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.config = WhisperOptions(**options)
        self._model: Any = None
        self._batched: Any = None
        self._whisper_codes: frozenset[str] = frozenset()

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> None:
        model_bin = os.path.join(self.config.model_dir, "model.bin")
        if not os.path.isfile(model_bin):
            cause = FileNotFoundError(model_bin)
            raise EngineUnavailable(f"no Whisper model at {self.config.model_dir}") from cause
        try:
            from faster_whisper import BatchedInferencePipeline, WhisperModel

            model = WhisperModel(
                self.config.model_dir,
                device=self.config.device,
                compute_type=self.config.compute_type,
                cpu_threads=self.config.cpu_threads,
                num_workers=self.config.num_workers,
                local_files_only=True,
            )
        except Exception as exc:  # ImportError, RuntimeError from CTranslate2, bad files
            raise EngineUnavailable(f"cannot load Whisper model {self.config.model_dir}: {exc}") from exc
        self._use_model(model, BatchedInferencePipeline(model) if self.config.batch_size > 0 else None)

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

    def describe(self) -> dict[str, Any]:
        return {"engine": self.name, **asdict(self.config)}

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
        array = as_audio_array(audio)
        try:
            _, _, ranked = self._model.detect_language(array, vad_filter=self.config.vad_filter)
        except Exception as exc:
            raise EngineFailure(f"language detection failed: {exc}") from exc
        return _best_api_language(ranked)

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
            options=self.config,
            segments=tuple(_segment(s, offset) for s in segments),
        )

    def _decode(self, array: np.ndarray, whisper_code: str, initial_prompt: str | None) -> list[Any]:
        cfg = self.config
        kwargs: dict[str, Any] = {
            "language": whisper_code,
            "beam_size": cfg.beam_size,
            "word_timestamps": cfg.word_timestamps,
            "vad_filter": cfg.vad_filter,
            "initial_prompt": initial_prompt,
        }
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


def _best_api_language(ranked: list[tuple[str, float]]) -> tuple[str, float]:
    totals: dict[str, float] = {}
    for whisper_code, prob in ranked:
        code = to_api_language(whisper_code)
        if code is not None:
            totals[code] = totals.get(code, 0.0) + float(prob)
    if not totals:
        raise UnsupportedLanguage("no served language detected in the speech")
    code = max(totals, key=totals.__getitem__)
    return code, min(totals[code], 1.0)


def _segment(raw: Any, offset: float) -> Segment:
    words = tuple(
        Word(start=float(w.start) + offset, end=float(w.end) + offset, text=w.word, probability=float(w.probability))
        for w in (raw.words or ())
    )
    return Segment(start=float(raw.start) + offset, end=float(raw.end) + offset, text=raw.text.strip(), words=words)
