"""Emotion prosody and the synthesizer's routing, with a tone-making engine (the real engines: tests/integration)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from engines.errors import InvalidInput, UnsupportedLanguage
from engines.speaker.gender import median_f0
from engines.tts.base import NativeVoice, TtsEngine, VoiceStyle
from engines.tts.emotion import EMOTIONS, prosody
from engines.tts.prosody import apply_gain, engine_speed, shift_pitch
from engines.tts.synthesizer import SpeechRequest, Synthesizer
from engines.tts.voice_table import VoiceTable

RATE = 16_000


class ToneEngine(TtsEngine):
    """Says every sentence as a 150 Hz buzz, 0.08 s per character at speed 1."""

    def __init__(self, name: str, langs: tuple[str, ...], styles: bool = False) -> None:
        super().__init__()
        self.name, self.langs, self.supports_styles = name, langs, styles
        self.calls: list[tuple[str, object, str, float]] = []

    def start(self) -> None: ...

    def voices(self) -> Sequence[NativeVoice]:
        return (NativeVoice(f"{self.name}.f", "F", self.langs, "female", self.name, RATE),
                NativeVoice(f"{self.name}.m", "M", self.langs, "male", self.name, RATE))  # fmt: skip

    def languages(self) -> Sequence[str]:
        return self.langs

    def speak(self, text: str, voice: object, lang: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        self.calls.append((text, voice, lang, speed))
        t = np.arange(int(RATE * 0.08 * len(text) / speed)) / RATE
        return (0.3 * np.sign(np.sin(2 * np.pi * 150 * t))).astype(np.float32), RATE


def test_pitch_shift_keeps_duration_and_moves_f0() -> None:
    t = np.arange(RATE * 2) / RATE
    buzz = (0.3 * np.sign(np.sin(2 * np.pi * 150 * t))).astype(np.float32)
    slowed = engine_speed(1.0, 3.0)
    assert slowed < 1.0
    spoken = buzz[: len(buzz)]  # the engine would speak 1/slowed longer; resampling brings it back
    shifted = shift_pitch(spoken, 3.0)
    assert abs(len(shifted) - len(spoken) / 2 ** (3 / 12)) < 10
    assert 12 * np.log2(median_f0(shifted, RATE) / median_f0(buzz, RATE)) == pytest.approx(3.0, abs=0.4)
    assert np.max(np.abs(apply_gain(buzz, 20.0))) <= 10 ** (-1 / 20) + 1e-6


def test_emotions_scale_with_intensity() -> None:
    assert prosody("neutral", 1.0, 1.3).speed == pytest.approx(1.3)
    for name, (rate, pitch, gain) in EMOTIONS.items():
        full, half, none = prosody(name, 1.0, 1.0), prosody(name, 0.5, 1.0), prosody(name, 0.0, 1.0)
        assert (full.speed, full.pitch_semitones, full.gain_db) == pytest.approx((rate, pitch, gain))
        assert half.pitch_semitones == pytest.approx(pitch / 2) and none.gain_db == 0.0


def test_routing_by_voice_language_and_style() -> None:
    kokoro = ToneEngine("kokoro", ("en", "es"), styles=True)
    espeak = ToneEngine("espeak", ("en", "fi"))
    synth = Synthesizer({"kokoro": kokoro, "espeak": espeak})
    assert synth.plan(SpeechRequest(text="Hi.", lang="fi")).engine == "espeak"
    assert synth.plan(SpeechRequest(text="Hi.", lang="en", gender="male")).voice_id == "kokoro.m"
    assert synth.plan(SpeechRequest(text="Hi.", lang="en", voice="espeak.f")).engine == "espeak"
    style = {"engine": "kokoro", "style": VoiceStyle({"a": 1.0}, extra={"pitch_semitones": 2.0}).to_json()}
    assert synth.plan(SpeechRequest(text="Hi.", lang="es", style=style)).voice_id == "cloned"
    with pytest.raises(UnsupportedLanguage):
        synth.plan(SpeechRequest(text="Hi.", lang="fi", style=style))
    with pytest.raises(UnsupportedLanguage):
        synth.plan(SpeechRequest(text="Hi.", lang="zh"))
    with pytest.raises(InvalidInput):
        synth.plan(SpeechRequest(text="Hi.", lang="en", voice="kokoro.nobody"))


def test_the_measured_default_wins_and_leads_the_languages_voice_list() -> None:
    kokoro = ToneEngine("kokoro", ("en", "de"))
    espeak = ToneEngine("espeak", ("en", "de", "fi"))
    table = VoiceTable(
        defaults={"de": {"female": "espeak.f", "male": "kokoro.m"}, "fi": {"female": "kokoro.f"}},
        ranked={"de": {"female": ["kokoro.f", "espeak.f"]}},
    )
    synth = Synthesizer({"kokoro": kokoro, "espeak": espeak}, table=table)
    assert synth.plan(SpeechRequest(text="Hallo.", lang="de")).voice_id == "espeak.f"
    assert synth.plan(SpeechRequest(text="Hallo.", lang="de", gender="male")).voice_id == "kokoro.m"
    # a default the replica cannot speak the language with falls back to the engine rule
    assert synth.plan(SpeechRequest(text="Hei.", lang="fi")).voice_id == "espeak.f"
    assert synth.plan(SpeechRequest(text="Hi.", lang="en")).voice_id == "kokoro.f"  # unmeasured: engine order
    order = [v.id for v in synth.voices("de")]
    assert set(order[:2]) == {"espeak.f", "kokoro.m"} and order.index("kokoro.f") < order.index("espeak.m")
    assert {v.id for v in synth.voices()} == {"kokoro.f", "kokoro.m", "espeak.f", "espeak.m"}


def test_stream_is_one_chunk_per_sentence_and_emotion_reaches_the_engine() -> None:
    engine = ToneEngine("kokoro", ("en",))
    synth = Synthesizer({"kokoro": engine})
    chunks = list(synth.stream(SpeechRequest(text="One. Two! Three?", lang="en", output_format="pcm",
                                             emotion="sad", emotion_intensity=1.0)))  # fmt: skip
    assert len(chunks) >= 3 and all(chunks)
    assert [c[0] for c in engine.calls] == ["One.", "Two!", "Three?"]
    rate, pitch, _ = EMOTIONS["sad"]
    assert engine.calls[0][3] == pytest.approx(engine_speed(rate, pitch))
    with pytest.raises(InvalidInput):
        list(synth.stream(SpeechRequest(text="...", lang="en")))
