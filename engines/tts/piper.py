"""Piper voices (VITS, ONNX) on plain onnxruntime, phonemised by espeak-ng as Piper does.

A Piper voice is ``<name>.onnx`` plus ``<name>.onnx.json``: the JSON holds the
phoneme → id map, the output rate, the default noise and length scales and the
espeak-ng voice. Each sentence becomes ``^ _ p1 _ p2 _ … $`` (BOS, pad after
every symbol, EOS) and is synthesised on its own; sentences are joined with a
short pause. ``piper-tts`` itself (GPL) is not used.

Options: ``PiperOptions``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field

from engines.errors import EngineFailure, EngineUnavailable, InvalidInput, UnsupportedLanguage
from engines.options import EngineOptions, ProjectPath
from engines.tts.base import NativeVoice, TtsEngine, VoiceStyle

PAD, BOS, EOS = "_", "^", "$"
SENTENCE_GAP_S = 0.2
MIN_SPEED, MAX_SPEED = 0.5, 2.0
#: Peak level of the output (Piper scales each sentence to full scale; a little headroom here).
PEAK = 0.95

#: Voices with a chosen id and name: model file stem → (voice id, name, gender, language).
#: Others get ``piper.<stem>`` and the language of their config (gender unknown: "male").
KNOWN_VOICES: dict[str, tuple[str, str, str, str]] = {
    "en_US-joe-medium": ("piper.en_us_joe", "Joe (US English, Piper)", "male", "en"),
}


class PiperOptions(EngineOptions):
    """How the Piper engine loads its voice."""

    model_dir: ProjectPath = Field(
        "models/piper-en_US-joe-medium",
        min_length=1,
        description="Folder with one *.onnx voice and its *.onnx.json; relative to the project root.",
    )
    threads: int = Field(2, ge=1, description="onnxruntime intra-op threads per synthesis.")


@dataclass(frozen=True)
class PiperVoiceConfig:
    """What a voice's ``.onnx.json`` says about inference."""

    phoneme_id_map: dict[str, list[int]]
    sample_rate: int
    espeak_voice: str
    language: str
    noise_scale: float
    length_scale: float
    noise_w: float
    num_speakers: int

    @classmethod
    def load(cls, path: Path) -> PiperVoiceConfig:
        data = json.loads(path.read_text(encoding="utf-8"))
        inference = data.get("inference", {})
        return cls(
            phoneme_id_map={str(k): [int(i) for i in v] for k, v in data["phoneme_id_map"].items()},
            sample_rate=int(data["audio"]["sample_rate"]),
            espeak_voice=str(data.get("espeak", {}).get("voice", "en-us")),
            language=str(data.get("language", {}).get("family", "en")),
            noise_scale=float(inference.get("noise_scale", 0.667)),
            length_scale=float(inference.get("length_scale", 1.0)),
            noise_w=float(inference.get("noise_w", 0.8)),
            num_speakers=int(data.get("num_speakers", 1)),
        )

    def ids(self, phonemes: str) -> list[int]:
        """Piper's id sequence: BOS, pad, then each known phoneme followed by pad, then EOS."""
        table = self.phoneme_id_map
        ids = [*table[BOS], *table[PAD]]
        for phoneme in phonemes:
            if phoneme in table:  # Piper skips (and logs) phonemes the voice never saw
                ids += [*table[phoneme], *table[PAD]]
        return [*ids, *table[EOS]]


class PiperEngine(TtsEngine):
    """One Piper voice on onnxruntime (CPU)."""

    name = "piper"
    Options = PiperOptions
    options: PiperOptions

    def __init__(self, options: PiperOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._session: Any = None
        self._voice_config: PiperVoiceConfig | None = None
        self._phonemizer: Any = None
        self._voice: NativeVoice | None = None
        self._model_file: Path | None = None

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> None:
        model_dir = Path(self.options.model_dir)
        models = sorted(model_dir.glob("*.onnx"))
        if len(models) != 1 or not models[0].with_suffix(".onnx.json").is_file():
            raise EngineUnavailable(f"need one Piper voice (.onnx + .onnx.json) in {model_dir}; run `make setup`")
        model = models[0]
        try:
            import onnxruntime as ort

            from engines.tts.phonemes import EspeakPhonemizer

            voice_config = PiperVoiceConfig.load(model.with_suffix(".onnx.json"))
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self.options.threads
            opts.inter_op_num_threads = 1
            session = ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
            phonemizer = EspeakPhonemizer()
            phonemizer.sentences("test", voice_config.espeak_voice)  # fails now if espeak lacks the voice
        except Exception as exc:  # ImportError, onnxruntime load errors, bad JSON, espeak-ng missing
            raise EngineUnavailable(f"cannot load Piper voice {model}: {exc}") from exc
        self._session, self._voice_config, self._phonemizer = session, voice_config, phonemizer
        self._model_file = model
        self._voice = _native_voice(model, voice_config, self.name)

    def health(self) -> None:
        if self._session is None:
            raise EngineUnavailable("Piper is not started")

    def shutdown(self) -> None:
        self._session = None
        if self._phonemizer is not None:
            self._phonemizer.close()
            self._phonemizer = None

    def describe(self) -> dict[str, Any]:
        model = self._model_file.name if self._model_file else None
        return {**super().describe(), "model": model}

    # ----------------------------------------------------------------- voices

    def voices(self) -> Sequence[NativeVoice]:
        self.health()
        assert self._voice is not None
        return (self._voice,)

    def languages(self) -> Sequence[str]:
        self.health()
        assert self._voice is not None
        return self._voice.languages

    # ----------------------------------------------------------------- synthesis

    def speak(self, text: str, voice: str | VoiceStyle, lang: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        self.health()
        cfg, native = self._voice_config, self._voice
        assert cfg is not None and native is not None
        if isinstance(voice, VoiceStyle) or voice != native.id:
            raise InvalidInput(f"unknown Piper voice {voice!r}; this engine has {native.id!r}")
        if lang not in native.languages:
            raise UnsupportedLanguage(f"Piper voice {native.id} does not speak {lang!r}", target=lang)
        scales = np.array([cfg.noise_scale, cfg.length_scale / _speed(speed), cfg.noise_w], dtype=np.float32)
        try:
            sentences = self._phonemizer.sentences(text, cfg.espeak_voice)
        except Exception as exc:
            raise EngineFailure(f"espeak-ng phonemisation failed: {exc}") from exc
        if not sentences:
            raise InvalidInput("nothing to say: the text has no pronounceable characters")
        gap = np.zeros(int(SENTENCE_GAP_S * cfg.sample_rate), dtype=np.float32)
        parts: list[np.ndarray] = []
        for index, sentence in enumerate(sentences):
            if index:
                parts.append(gap)
            parts.append(self._synthesize(cfg.ids(sentence), scales))
        return np.concatenate(parts), cfg.sample_rate

    def _synthesize(self, ids: list[int], scales: np.ndarray) -> np.ndarray:
        feeds: dict[str, np.ndarray] = {
            "input": np.array([ids], dtype=np.int64),
            "input_lengths": np.array([len(ids)], dtype=np.int64),
            "scales": scales,
        }
        assert self._voice_config is not None
        if self._voice_config.num_speakers > 1:
            feeds["sid"] = np.zeros(1, dtype=np.int64)
        try:
            audio = self._session.run(None, feeds)[0]
        except Exception as exc:  # onnxruntime errors
            raise EngineFailure(f"Piper inference failed: {exc}") from exc
        samples = np.asarray(audio, dtype=np.float32).reshape(-1)
        peak = float(np.max(np.abs(samples))) if samples.size else 0.0
        return samples * (PEAK / max(peak, 0.01))


def _speed(speed: float) -> float:
    if not math.isfinite(speed) or speed <= 0:
        raise InvalidInput(f"speed must be a positive number, got {speed}")
    return min(max(speed, MIN_SPEED), MAX_SPEED)


def _native_voice(model: Path, config: PiperVoiceConfig, engine: str) -> NativeVoice:
    stem = model.name.removesuffix(".onnx")
    fallback = (f"piper.{stem.lower().replace('-', '_')}", stem, "male", config.language)
    voice_id, name, gender, lang = KNOWN_VOICES.get(stem, fallback)
    return NativeVoice(voice_id, name, (lang,), gender, engine, config.sample_rate)
