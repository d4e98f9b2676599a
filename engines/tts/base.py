"""What a speech synthesis engine offers and how it is called.

An engine speaks one sentence at a time (the TTS deployment splits, normalises
and streams); it returns float32 mono samples in ``[-1, 1]`` at its own rate.
A voice is either one of the engine's native voices (by id) or a fitted voice
(:class:`VoiceStyle`), which only engines with ``supports_styles`` accept.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from engines.base import Engine


@dataclasses.dataclass(frozen=True)
class NativeVoice:
    """A voice an engine ships.

    Attributes:
        id: public id, unique across engines (``kokoro.af_heart``, ``piper.en_us_joe``, ``espeak.de``).
        name: human name.
        languages: codes (ISO 639-1) it speaks well enough to be offered.
        gender: ``female`` or ``male``.
        engine: registry name of the engine.
        sample_rate: output rate in Hz.
        quality: measured intelligibility (Whisper word accuracy, 0–1) where known; picks defaults.
    """

    id: str
    name: str
    languages: tuple[str, ...]
    gender: str
    engine: str
    sample_rate: int
    quality: float | None = None

    def public(self) -> dict[str, Any]:
        return {
            "voice_id": self.id,
            "name": self.name,
            "languages": list(self.languages),
            "gender": self.gender,
            "engine": self.engine,
            "sample_rate": self.sample_rate,
        }


@dataclasses.dataclass(frozen=True)
class VoiceStyle:
    """A cloned voice: a weighted blend of stock style packs plus an offset (Kokoro's 256-d space).

    Attributes:
        weights: stock voice name → blend weight (they need not sum to 1).
        offset: 256 floats added to every row of the blended pack.
        base_lang: language the sample was spoken in.
        extra: engine-specific conditioning (XTTS latents) for engines that do not blend styles.
    """

    weights: dict[str, float]
    offset: tuple[float, ...] = ()
    base_lang: str = "en"
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"weights": self.weights, "offset": list(self.offset), "base_lang": self.base_lang}
        if self.extra:
            data["extra"] = self.extra
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VoiceStyle:
        return cls(
            weights={str(k): float(v) for k, v in data["weights"].items()},
            offset=tuple(float(x) for x in data.get("offset", ())),
            base_lang=str(data.get("base_lang", "en")),
            extra=dict(data.get("extra") or {}),
        )


@dataclasses.dataclass(frozen=True)
class Prosody:
    """How to speak: rate multiplier, pitch shift in semitones, loudness gain in dB."""

    speed: float = 1.0
    pitch_semitones: float = 0.0
    gain_db: float = 0.0


class TtsEngine(Engine):
    """Base class of speech synthesis engines."""

    #: Whether :meth:`speak` accepts a :class:`VoiceStyle` (fitted voices).
    supports_styles: bool = False

    @abc.abstractmethod
    def voices(self) -> Sequence[NativeVoice]:
        """The native voices, in order of preference per language."""

    @abc.abstractmethod
    def languages(self) -> Sequence[str]:
        """Language codes this engine can speak."""

    @abc.abstractmethod
    def speak(self, text: str, voice: str | VoiceStyle, lang: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        """One sentence (already normalised) → (float32 mono samples, sample rate).

        ``voice`` is a native voice id of this engine or, where supported, a fitted style.
        Raises ``UnsupportedLanguage`` for a language it cannot speak and ``InvalidInput``
        for text that yields nothing to say.
        """
