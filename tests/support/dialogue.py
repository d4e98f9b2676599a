"""A synthetic two-voice dialogue with a known script, for diarization tests and the benchmark.

espeak-ng reads ten alternating lines with two clearly different voices (a
low male variant and a high female one, at different speeds), joined with
fixed pauses of 0.3–0.8 s. The reference turns are exact: each line's audio
with its leading and trailing silence trimmed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.support.speech import RATE, espeak

#: (voice, line): espeak-ng voice variants ``en+m3`` (male) and ``en+f4`` (female).
SCRIPT: tuple[tuple[str, str], ...] = (
    ("en+m3", "Good morning. Did you bring the maps for the trip to the northern coast?"),
    ("en+f4", "I did, and I marked every village where we can stop for the night."),
    ("en+m3", "Perfect. How long do you think the drive will take on the first day?"),
    ("en+f4", "About six hours, if the weather stays clear and the roads are open."),
    ("en+m3", "Then we should leave early, before the traffic builds up in the city."),
    ("en+f4", "Agreed. I will pack the car tonight and fill the tank on the way home."),
    ("en+m3", "Do not forget the camera. The cliffs near the lighthouse are beautiful."),
    ("en+f4", "It is already in my bag, together with the spare batteries and a tripod."),
    ("en+m3", "Great. I will book the small hotel by the harbour for two nights."),
    ("en+f4", "Wonderful. Then everything is ready, and we can finally enjoy the holiday."),
)
SPEAKERS = {"en+m3": "male", "en+f4": "female"}
SPEEDS = {"en+m3": 150, "en+f4": 175}
#: Pause after each line, seconds (cycled).
PAUSES = (0.5, 0.3, 0.8, 0.4, 0.6, 0.7)
#: Samples quieter than this count as the silence espeak-ng leaves around a line.
_SILENCE = 1e-3


@dataclass(frozen=True)
class Dialogue:
    """Audio (float32, 16 kHz) and its reference turns ``(start, end, speaker)`` in seconds."""

    audio: np.ndarray
    turns: tuple[tuple[float, float, str], ...]
    sample_rate: int = RATE

    @property
    def duration(self) -> float:
        return len(self.audio) / self.sample_rate


def _trimmed(audio: np.ndarray) -> np.ndarray:
    loud = np.flatnonzero(np.abs(audio) > _SILENCE)
    return audio[loud[0] : loud[-1] + 1] if loud.size else audio[:0]


def build_dialogue(lead_in: float = 0.5) -> Dialogue:
    """The scripted dialogue (about 45 s): ``lead_in`` seconds of silence, then the lines with their pauses.

    Raises:
        RuntimeError: when espeak-ng is not installed.
    """
    pieces = [np.zeros(round(lead_in * RATE), dtype=np.float32)]
    turns = []
    cursor = len(pieces[0])
    for i, (voice, line) in enumerate(SCRIPT):
        speech = _trimmed(espeak(line, voice, RATE, speed=SPEEDS[voice])) * np.float32(0.8)
        turns.append((cursor / RATE, (cursor + speech.size) / RATE, voice))
        pause = np.zeros(round(PAUSES[i % len(PAUSES)] * RATE), dtype=np.float32)
        pieces += [speech, pause]
        cursor += speech.size + pause.size
    return Dialogue(np.concatenate(pieces).astype(np.float32), tuple(turns))
