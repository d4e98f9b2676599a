"""Speaker profiles of a diarization: seconds, perceived gender and mean d-vector per speaker.

Shared by the diarization engines so every engine describes speakers the same
way: the gender is :func:`~engines.speaker.gender.estimate_gender`
on up to :data:`GENDER_MAX_S` seconds of the speaker's turns joined together
(``("male", 0.5)``, i.e. undecided, when they hold too little voiced speech),
and the embedding is the normalised mean of VoiceFilter d-vectors of the
speaker's speech, the encoder the dubbing voice matching uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from engines.audio.dsp import UnusableAudio
from engines.diarization.base import DIARIZATION_RATE, SpeakerProfile, SpeakerTurn
from engines.speaker.gender import estimate_gender

#: Seconds of a speaker's speech the gender estimate listens to.
GENDER_MAX_S = 30.0
#: Seconds of a speaker's speech embedded when an engine has no window embeddings of its own.
EMBED_MAX_S = 60.0
UNDECIDED = ("male", 0.5)


def speaker_audio(samples: np.ndarray, turns: Sequence[SpeakerTurn], speaker: str, offset: float, max_s: float) -> np.ndarray:
    """The speaker's turns of ``samples`` (16 kHz) joined, at most ``max_s`` seconds."""
    pieces, total, limit = [], 0, round(max_s * DIARIZATION_RATE)
    for turn in turns:
        if turn.speaker != speaker or total >= limit:
            continue
        piece = samples[max(0, round((turn.start - offset) * DIARIZATION_RATE)) : round((turn.end - offset) * DIARIZATION_RATE)]
        piece = piece[: limit - total]
        pieces.append(piece)
        total += piece.size
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float32)


def gender_of(speech: np.ndarray) -> tuple[str, float]:
    """``(gender, confidence)`` of 16 kHz speech; :data:`UNDECIDED` when it has too little pitch."""
    try:
        return estimate_gender(speech, DIARIZATION_RATE)
    except UnusableAudio:
        return UNDECIDED


def build_profiles(
    samples: np.ndarray, turns: Sequence[SpeakerTurn], embeddings: Mapping[str, np.ndarray], offset: float = 0.0
) -> tuple[SpeakerProfile, ...]:
    """One profile per speaker in ``embeddings`` (id → ``(n, d)`` unit vectors, or one vector), in id order."""
    profiles = []
    for speaker in sorted(embeddings, key=lambda s: int(s[1:]) if s[1:].isdigit() else 0):
        vectors = np.atleast_2d(np.asarray(embeddings[speaker], dtype=np.float64))
        mean = vectors.mean(axis=0)
        mean /= np.linalg.norm(mean) or 1.0
        gender, confidence = gender_of(speaker_audio(samples, turns, speaker, offset, GENDER_MAX_S))
        seconds = sum(turn.end - turn.start for turn in turns if turn.speaker == speaker)
        profiles.append(
            SpeakerProfile(
                speaker=speaker,
                seconds=round(seconds, 3),
                gender=gender,
                gender_confidence=round(float(confidence), 4),
                embedding=tuple(float(x) for x in mean),
            )
        )
    return tuple(profiles)
