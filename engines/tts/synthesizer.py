"""Text to streamed audio: pick the engine and voice, speak sentence by sentence, encode.

Routing (``docs/tts.md``): a native voice id names its engine
(``kokoro.af_heart``, ``piper.en_us_joe``, ``espeak.de.female``); a cloned
voice is spoken by the engine that fitted it; with no voice, the measured
default of the language and gender (the voice table, ``configs/voices.yaml``),
else the language's default engine (``defaults`` in the config, else the
first engine that speaks it) speaks with its first voice of that gender. Each sentence is synthesized, shaped
(emotion: rate, pitch, loudness) and encoded before the next one starts, so
the first bytes leave after one sentence.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Generator, Mapping, Sequence
from typing import Any, Final

import numpy as np

from engines.errors import InvalidInput, UnsupportedLanguage
from engines.tts.base import NativeVoice, TtsEngine, VoiceStyle
from engines.tts.emotion import prosody
from engines.tts.encode import StreamEncoder, content_type
from engines.tts.equalizer import apply_matching
from engines.tts.prosody import apply_gain, engine_speed, shift_pitch
from engines.tts.text import lead_clause, sentences
from engines.tts.voice_table import VoiceTable

log = logging.getLogger(__name__)

#: Defaults of a request that leaves them out (``SpeechRequest`` and the edge's ``TtsRequest``).
DEFAULT_GENDER: Final = "female"
DEFAULT_EMOTION: Final = "neutral"
DEFAULT_EMOTION_INTENSITY: Final = 0.5
DEFAULT_SPEED: Final = 1.0
DEFAULT_OUTPUT_FORMAT: Final = "mp3"


@dataclasses.dataclass(frozen=True)
class SpeechRequest:
    """One ``POST /v1/tts`` after the edge resolved the voice.

    Attributes:
        voice: a native voice id, or None for the language's default.
        style: a cloned voice (``{"engine": ..., "style": {...}}``), instead of ``voice``.
        gender: preferred gender of a default voice.
    """

    text: str
    lang: str
    voice: str | None = None
    style: Mapping[str, Any] | None = None
    gender: str = DEFAULT_GENDER
    emotion: str = DEFAULT_EMOTION
    emotion_intensity: float = DEFAULT_EMOTION_INTENSITY
    speed: float = DEFAULT_SPEED
    output_format: str = DEFAULT_OUTPUT_FORMAT


@dataclasses.dataclass(frozen=True)
class SpeechPlan:
    """How a request will be spoken, decided once (:meth:`Synthesizer.plan`) and handed to :meth:`Synthesizer.stream`.

    Plain values only, so it crosses a Serve handle: the edge reads the content type, voice and rate for its
    headers, and the replica streams with it without planning again.

    Attributes:
        engine: registry name of the engine that speaks it (the replica looks the engine up by it).
        voice: the engine's native voice id, or the cloned voice's style.
        voice_id: the native voice id, or ``cloned`` (the ``X-Voice`` header).
        lang: the language spoken.
        sample_rate: of the audio sent, in Hz.
        content_type: of the encoded audio (by the request's output format).
    """

    engine: str
    voice: str | VoiceStyle
    voice_id: str
    lang: str
    sample_rate: int
    content_type: str


class Synthesizer:
    """The TTS engines of a replica and the rules that route a request to one.

    Args:
        engines: started engines by registry name.
        defaults: language → engine name for requests without a voice (others: the first engine speaking it).
        table: measured default voice per language and gender, and the professional order.
    """

    def __init__(
        self, engines: Mapping[str, TtsEngine], defaults: Mapping[str, str] | None = None, table: VoiceTable | None = None
    ) -> None:
        self.engines = dict(engines)
        self.defaults = dict(defaults or {})
        self.table = table or VoiceTable()
        self.catalogue: dict[str, NativeVoice] = {v.id: v for e in self.engines.values() for v in e.voices()}

    def voices(self, lang: str | None = None) -> list[NativeVoice]:
        """Voices (of ``lang``); for a language, each gender's default first, then the professional order."""
        offered = [v for v in self.catalogue.values() if lang is None or lang in v.languages]
        if lang is None:
            return offered
        rank: dict[str, int] = {}
        for gender in ("female", "male"):
            default = self._table_default(lang, gender)
            measured = ([default.id] if default else []) + self.table.order(lang, gender)
            for i, voice_id in enumerate(measured):
                rank.setdefault(voice_id, i)
        return sorted(offered, key=lambda v: rank.get(v.id, len(rank)))

    def languages(self) -> list[str]:
        return sorted({lang for e in self.engines.values() for lang in e.languages()})

    def plan(self, request: SpeechRequest) -> SpeechPlan:
        """Engine, voice and language of ``request``; raises InvalidInput / UnsupportedLanguage."""
        if request.style is not None:
            name = str(request.style.get("engine"))
            engine = self.engines.get(name)
            if engine is None or not engine.supports_styles:
                raise InvalidInput("this cloned voice was made by an engine this service no longer runs")
            if request.lang not in engine.languages():
                raise UnsupportedLanguage(f"cloned voices cannot speak {request.lang!r}", target=request.lang)
            style = VoiceStyle.from_json(dict(request.style["style"]))
            return self._plan(name, style, "cloned", request)
        if request.voice is not None:
            native = self.catalogue.get(request.voice)
            if native is None:
                raise InvalidInput(f"unknown voice {request.voice!r}; GET /v1/tts/voices lists them")
            if request.lang not in native.languages:
                raise UnsupportedLanguage(
                    f"voice {request.voice!r} speaks {', '.join(native.languages)}, not {request.lang!r}", target=request.lang
                )
            return self._plan(native.engine, native.id, native.id, request)
        measured = self._table_default(request.lang, request.gender)
        if measured is not None:
            return self._plan(measured.engine, measured.id, measured.id, request)
        name = self._default_engine(request.lang)
        offered = [v for v in self.engines[name].voices() if request.lang in v.languages]
        chosen = next((v for v in offered if v.gender == request.gender), offered[0])
        return self._plan(name, chosen.id, chosen.id, request)

    def _table_default(self, lang: str, gender: str) -> NativeVoice | None:
        """The voice table's default for ``lang`` and ``gender``, when this replica runs it and it speaks ``lang``."""
        voice = self.catalogue.get(self.table.default(lang, gender) or "")
        return voice if voice is not None and lang in voice.languages else None

    def _default_engine(self, lang: str) -> str:
        """The name of the engine that speaks ``lang`` when no voice is given."""
        name = self.defaults.get(lang)
        if name in self.engines and lang in self.engines[name].languages():
            return name
        for name, engine in self.engines.items():
            if lang in engine.languages() and any(lang in v.languages for v in engine.voices()):
                return name
        raise UnsupportedLanguage(f"no voice speaks {lang!r}", target=lang)

    def _plan(self, engine: str, voice: str | VoiceStyle, voice_id: str, request: SpeechRequest) -> SpeechPlan:
        rate = self.catalogue[voice_id].sample_rate if voice_id in self.catalogue else _style_rate(self.engines[engine])
        return SpeechPlan(engine, voice, voice_id, request.lang, rate, content_type(request.output_format, rate))

    def stream(self, request: SpeechRequest, plan: SpeechPlan | None = None) -> Generator[bytes, None, None]:
        """Encoded audio, one chunk per sentence (then the encoder's tail); the first sentence's first clause
        comes alone, so the first chunk is ready sooner (``lead_clause``).

        ``plan`` is :meth:`plan`'s answer for ``request`` (the edge's, from another call); without it, or when
        this replica does not run its engine, the request is planned here.
        """
        if plan is None or plan.engine not in self.engines:
            plan = self.plan(request)
        pieces = lead_clause(sentences(request.text, request.lang))
        if not pieces:
            raise InvalidInput("nothing to say: the text has no speakable characters")
        shape = prosody(request.emotion, request.emotion_intensity, request.speed)
        encoder = StreamEncoder(request.output_format, plan.sample_rate)
        started = time.monotonic()
        spoken = 0.0
        for piece in pieces:
            audio = self.speak(plan, piece.text, shape.speed, shape.pitch_semitones, shape.gain_db)
            if piece.pause_after_s:
                audio = np.concatenate([audio, np.zeros(int(piece.pause_after_s * plan.sample_rate), np.float32)])
            spoken += len(audio) / plan.sample_rate
            chunk = encoder.write(audio)
            if chunk:
                yield chunk
        tail = encoder.close()
        if tail:
            yield tail
        elapsed = time.monotonic() - started
        log.info(
            "tts %s %s: %.1f s of speech in %.2f s (rtf %.2f)",
            plan.voice_id,
            plan.lang,
            spoken,
            elapsed,
            elapsed / max(spoken, 1e-6),
        )

    def render(self, request: SpeechRequest, semitones: float = 0.0) -> tuple[np.ndarray, int]:
        """The whole text as one float32 clip at the plan's rate (dubbing: one line, timed by the caller).

        ``semitones`` shifts the pitch on top of the request's emotion (a second speaker sharing a voice).
        """
        plan = self.plan(request)
        pieces = sentences(request.text, request.lang)
        if not pieces:
            raise InvalidInput("nothing to say: the text has no speakable characters")
        shape = prosody(request.emotion, request.emotion_intensity, request.speed)
        parts: list[np.ndarray] = []
        for piece in pieces:
            parts.append(self.speak(plan, piece.text, shape.speed, shape.pitch_semitones + semitones, shape.gain_db))
            if piece.pause_after_s:
                parts.append(np.zeros(int(piece.pause_after_s * plan.sample_rate), np.float32))
        return np.concatenate(parts).astype(np.float32), plan.sample_rate

    def speak(self, plan: SpeechPlan, text: str, speed: float, semitones: float, gain_db: float) -> np.ndarray:
        """One sentence with its prosody (and a cloned voice's pitch and spectral matching), at ``plan.sample_rate``."""
        extra = plan.voice.extra if isinstance(plan.voice, VoiceStyle) else {}
        semitones += float(extra.get("pitch_semitones", 0.0))
        audio, rate = self.engines[plan.engine].speak(text, plan.voice, plan.lang, engine_speed(speed, semitones))
        if rate != plan.sample_rate:
            import soxr

            audio = soxr.resample(audio, rate, plan.sample_rate).astype(np.float32)
        audio = apply_matching(shift_pitch(np.asarray(audio, np.float32), semitones), plan.sample_rate, extra)
        return apply_gain(audio, gain_db)


def _style_rate(engine: TtsEngine) -> int:
    voices: Sequence[NativeVoice] = engine.voices()
    return voices[0].sample_rate if voices else 24_000
