"""Which voice speaks each line: ``dubbing_voice``, the target language and, with diarization, each speaker.

The rule (docs/dubbing.md):

* ``dubbing_voice`` names a tier and a gender. ``default-*`` is the voice the
  TTS service itself uses for the language and gender (its default engine's
  first voice of that gender). ``professional-*`` is the voice of that gender
  first in the measured professional order (``configs/voices.yaml``, written by
  ``calibration/score_voices.py``: natural neural voices first where they are about as
  intelligible as the best); where nothing was measured it falls back to the default.
* Without diarization one voice speaks every line.
* With diarization each speaker gets a voice of their own estimated gender
  (the requested gender where the estimate is unsure, confidence < 0.6):
  speakers in order of speaking time take that gender's voices in ranked
  order, the first speaker of the requested gender starting from the tier's
  voice. When a language has fewer voices of a gender than speakers, voices
  are reused, each reuse pitched ±2 semitones apart so two speakers never
  sound alike.
* A fitted (cloned) voice of the account replaces a speaker's stock voice when
  its timbre matches that speaker: cosine similarity of speaker embeddings
  ≥ ``FITTED_MATCH`` (0.80, above the different-speaker p95 of the encoder,
  0.71), it speaks the target language, and no other speaker matched it better.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engines.tts.voice_table import VoiceTable

GENDERS = ("female", "male")
#: Below this gender confidence a speaker is voiced with the requested gender.
GENDER_CONFIDENCE = 0.6
#: Cosine similarity at which a fitted voice is taken as the speaker's own.
FITTED_MATCH = 0.80
#: Pitch shifts (semitones) of reused voices, in order: 2nd, 3rd, ... use of the same voice.
REUSE_SHIFTS = (2.0, -2.0, 4.0, -4.0)


@dataclasses.dataclass(frozen=True)
class VoiceChoice:
    """How one speaker (or the whole video) is voiced.

    Attributes:
        voice: native voice id (``kokoro.ef_dora``), None for a fitted voice.
        style: a fitted voice as the TTS deployment takes it (``{"engine", "style"}``).
        semitones: pitch shift that keeps reused voices apart.
        gender: the voice's gender.
        origin: ``default``, ``professional`` or ``fitted:<voice_id>``.
    """

    voice: str | None
    style: Mapping[str, Any] | None = None
    semitones: float = 0.0
    gender: str = "female"
    origin: str = "default"

    def public(self) -> dict[str, Any]:
        return {"voice": self.voice or self.origin.removeprefix("fitted:"), "gender": self.gender, "origin": self.origin,
                "pitch_semitones": self.semitones}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Speaker:
    """What diarization says about a speaker: display name, speaking time, gender, embedding."""

    name: str
    seconds: float
    gender: str
    gender_confidence: float
    embedding: tuple[float, ...] = ()


@dataclasses.dataclass(frozen=True)
class FittedVoice:
    """A ready cloned voice of the account, with an embedding of its synthesized speech."""

    voice_id: str
    gender: str
    style: Mapping[str, Any]
    embedding: tuple[float, ...]


def gender_voices(catalogue: Sequence[Mapping[str, Any]], gender: str) -> list[str]:
    """Voice ids of ``gender`` in the TTS service's own order (its default first)."""
    return [str(v["voice_id"]) for v in catalogue if v.get("gender") == gender]


def ranked_voices(catalogue: Sequence[Mapping[str, Any]], lang: str, gender: str, tier: str, ranking: VoiceTable) -> list[str]:
    """The voices of ``gender`` for ``lang``, the tier's voice first, then the rest in measured order."""
    offered = gender_voices(catalogue, gender)
    measured = [v for v in ranking.order(lang, gender) if v in offered]
    rest = measured + [v for v in offered if v not in measured]
    if not rest:
        return []
    first = measured[0] if tier == "professional" and measured else offered[0]
    return [first] + [v for v in rest if v != first]


def choose_voices(
    dubbing_voice: str,
    lang: str,
    catalogue: Sequence[Mapping[str, Any]],
    ranking: VoiceTable,
    speakers: Sequence[Speaker] = (),
    fitted: Sequence[FittedVoice] = (),
) -> dict[str | None, VoiceChoice]:
    """Voice per speaker name (key None: lines without a speaker, and the only key without diarization)."""
    tier, _, requested = dubbing_voice.partition("-")
    if not catalogue:
        raise ValueError(f"no voice speaks {lang}")
    by_gender = {g: ranked_voices(catalogue, lang, g, tier, ranking) for g in GENDERS}
    if not by_gender[requested]:  # a language with voices of one gender only
        requested = next(g for g in GENDERS if by_gender[g])
    origin = tier if tier == "professional" else "default"
    choices: dict[str | None, VoiceChoice] = {None: VoiceChoice(by_gender[requested][0], gender=requested, origin=origin)}
    matches = _fitted_matches(speakers, fitted)
    taken = {g: 0 for g in GENDERS}
    for speaker in sorted(speakers, key=lambda s: -s.seconds):
        if speaker.name in matches:
            voice = matches[speaker.name]
            choices[speaker.name] = VoiceChoice(None, voice.style, gender=voice.gender, origin=f"fitted:{voice.voice_id}")
            continue
        gender = speaker.gender if speaker.gender_confidence >= GENDER_CONFIDENCE else requested
        gender = gender if by_gender.get(gender) else requested
        voices, k = by_gender[gender], taken[gender]
        taken[gender] += 1
        rounds = k // len(voices)
        shift = REUSE_SHIFTS[(rounds - 1) % len(REUSE_SHIFTS)] if rounds else 0.0
        choices[speaker.name] = VoiceChoice(voices[k % len(voices)], semitones=shift, gender=gender, origin=origin)
    return choices


def _fitted_matches(speakers: Sequence[Speaker], fitted: Sequence[FittedVoice]) -> dict[str, FittedVoice]:
    """Each fitted voice goes to the one speaker it matches best, when that match reaches ``FITTED_MATCH``."""
    pairs = []
    for speaker in speakers:
        for voice in fitted:
            if speaker.embedding and voice.embedding:
                pairs.append((_cosine(speaker.embedding, voice.embedding), speaker.name, voice))
    matches: dict[str, FittedVoice] = {}
    taken: set[str] = set()
    for score, name, voice in sorted(pairs, key=lambda p: -p[0]):
        if score >= FITTED_MATCH and name not in matches and voice.voice_id not in taken:
            matches[name] = voice
            taken.add(voice.voice_id)
    return matches


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    denominator = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y / denominator) if denominator else 0.0
