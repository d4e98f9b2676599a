"""Emotions without an emotional model: what each ``emotion`` value does to the speech.

None of the offline engines takes an emotion input, so an emotion is
rendered as prosody that listeners read as that emotion: speaking rate,
pitch level and loudness. ``emotion_intensity`` (0–1) scales each change
linearly from neutral; 1.0 applies the full values below. The voice is never
swapped: the voice you ask for is the voice you get.

=========  ==========  ============  ===========
emotion    rate        pitch         loudness
=========  ==========  ============  ===========
neutral    ×1.00       ±0 semitones  ±0 dB
happy      ×1.08       +2 semitones  +2 dB
excited    ×1.15       +3 semitones  +3 dB
sad        ×0.88       −2 semitones  −3 dB
angry      ×1.06       +1 semitone   +4 dB
calm       ×0.92       −1 semitone   −2 dB
fearful    ×1.12       +2.5 semitones −1 dB
surprised  ×1.05       +3 semitones  +2 dB
=========  ==========  ============  ===========
"""

from __future__ import annotations

from engines.tts.base import Prosody

#: emotion → (rate factor, pitch semitones, gain dB) at intensity 1.0.
EMOTIONS: dict[str, tuple[float, float, float]] = {
    "neutral": (1.00, 0.0, 0.0),
    "happy": (1.08, 2.0, 2.0),
    "excited": (1.15, 3.0, 3.0),
    "sad": (0.88, -2.0, -3.0),
    "angry": (1.06, 1.0, 4.0),
    "calm": (0.92, -1.0, -2.0),
    "fearful": (1.12, 2.5, -1.0),
    "surprised": (1.05, 3.0, 2.0),
}


def prosody(emotion: str, intensity: float, speed: float) -> Prosody:
    """The prosody of ``emotion`` at ``intensity`` (0–1) on top of the requested ``speed``."""
    rate, pitch, gain = EMOTIONS[emotion]
    k = min(1.0, max(0.0, intensity))
    return Prosody(speed=speed * (1.0 + k * (rate - 1.0)), pitch_semitones=k * pitch, gain_db=k * gain)
