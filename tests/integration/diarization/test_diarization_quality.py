"""Diarization quality of the CPU engine on a real two-speaker scene and a synthetic scripted dialogue.

Real: the *Endgame* scene in ``moonshine-voice`` (Nagg, a man; Nell, a woman),
scored on the known turns of ``tests/support/speech.py`` only (the rest of the
file is not labelled). Synthetic: ``tests/support/dialogue.py`` (espeak-ng,
two voices, exact reference turns). Accuracy is the share of reference speech
time labelled with the right speaker under the best speaker mapping.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import soundfile as sf

from engines.diarization.base import Diarization
from engines.diarization.embedded import EmbeddedDiarizer
from engines.diarization.scoring import score
from engines.errors import InvalidInput
from tests.support import speech
from tests.support.dialogue import SPEAKERS, build_dialogue

pytestmark = pytest.mark.models

MIN_ACCURACY = 0.90
Reference = list[tuple[float, float, str]]


@pytest.fixture(scope="module")
def engine() -> Iterator[EmbeddedDiarizer]:
    diarizer = EmbeddedDiarizer()
    diarizer.start()
    yield diarizer
    diarizer.shutdown()


@pytest.fixture(scope="module")
def endgame() -> tuple[np.ndarray, Reference]:
    assets = speech._moonshine_assets()
    if assets is None or not (assets / "endgame_nagg_nell.wav").is_file():
        pytest.skip("moonshine-voice is not installed")
    audio, rate = sf.read(assets / "endgame_nagg_nell.wav", dtype="float32", always_2d=True)
    reference = [(s, e, "nagg") for s, e in speech._NAGG] + [(s, e, "nell") for s, e in speech._NELL]
    return speech.resample(audio.mean(axis=1), rate, speech.RATE), reference


@pytest.fixture(scope="module")
def dialogue() -> tuple[np.ndarray, Reference]:
    try:
        built = build_dialogue()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    return built.audio, [(s, e, SPEAKERS[voice]) for s, e, voice in built.turns]


def hypothesis(result: Diarization) -> Reference:
    return [(turn.start, turn.end, turn.speaker) for turn in result.turns]


def check_invariants(result: Diarization, duration: float, offset: float = 0.0) -> None:
    """Disjoint sorted turns inside the audio, ids S1.. by first appearance, one profile per id."""
    ids = list(dict.fromkeys(turn.speaker for turn in result.turns))
    assert ids == [f"S{i + 1}" for i in range(len(ids))]
    assert [p.speaker for p in result.speakers] == ids
    for turn, following in zip(result.turns, result.turns[1:]):
        assert turn.end <= following.start + 1e-6
    for turn in result.turns:
        assert offset - 1e-6 <= turn.start < turn.end <= offset + duration + 1e-3
    for profile in result.speakers:
        assert profile.gender in ("male", "female") and 0.5 <= profile.gender_confidence <= 1.0
        assert abs(np.linalg.norm(profile.embedding) - 1.0) < 1e-3
        assert profile.seconds == pytest.approx(
            sum(t.end - t.start for t in result.turns if t.speaker == profile.speaker), abs=0.01
        )


@pytest.mark.parametrize("num_speakers", [None, 2])
def test_real_scene_two_speakers_labelled_right(engine: EmbeddedDiarizer, endgame, num_speakers: int | None) -> None:
    audio, reference = endgame
    result = engine.diarize(audio, num_speakers=num_speakers)
    check_invariants(result, len(audio) / speech.RATE)
    assert result.speaker_count == 2
    assert score(reference, hypothesis(result), scored_only=True).accuracy >= MIN_ACCURACY


def test_real_scene_profiles_have_the_right_genders(engine: EmbeddedDiarizer, endgame) -> None:
    audio, reference = endgame
    result = engine.diarize(audio)
    mapping = score(reference, hypothesis(result), scored_only=True).mapping
    genders = {mapping[p.speaker]: p.gender for p in result.speakers if p.speaker in mapping}
    assert genders == {"nagg": "male", "nell": "female"}


@pytest.mark.parametrize("num_speakers", [None, 2])
def test_synthetic_dialogue_two_speakers_labelled_right(engine: EmbeddedDiarizer, dialogue, num_speakers: int | None) -> None:
    audio, reference = dialogue
    result = engine.diarize(audio, num_speakers=num_speakers)
    check_invariants(result, len(audio) / speech.RATE)
    assert result.speaker_count == 2
    outcome = score(reference, hypothesis(result))
    assert outcome.accuracy >= MIN_ACCURACY
    assert outcome.der <= 0.15
    genders = {outcome.mapping[p.speaker]: p.gender for p in result.speakers}
    assert genders == {"male": "male", "female": "female"}


def test_given_speaker_count_is_honoured(engine: EmbeddedDiarizer, dialogue) -> None:
    audio, reference = dialogue
    result = engine.diarize(audio, num_speakers=3)
    assert result.speaker_count == 3
    # The two real voices still hold most of the speech.
    assert score(reference, hypothesis(result)).accuracy >= 0.8


def test_offset_moves_every_time_and_progress_rises_to_one(engine: EmbeddedDiarizer, dialogue) -> None:
    audio, _ = dialogue
    seen: list[float] = []
    plain = engine.diarize(audio, num_speakers=2)
    moved = engine.diarize(audio, num_speakers=2, offset=100.0, on_progress=seen.append)
    assert [t.speaker for t in moved.turns] == [t.speaker for t in plain.turns]
    assert [t.start for t in moved.turns] == pytest.approx([t.start + 100.0 for t in plain.turns], abs=1e-3)
    assert [t.end for t in moved.turns] == pytest.approx([t.end + 100.0 for t in plain.turns], abs=1e-3)
    check_invariants(moved, len(audio) / speech.RATE, offset=100.0)
    assert seen and seen == sorted(seen) and seen[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in seen)


def test_more_speakers_than_windows_gives_one_per_window(engine: EmbeddedDiarizer, dialogue) -> None:
    audio, reference = dialogue
    short = audio[: round(reference[0][1] * speech.RATE)]  # the first line alone: a few windows
    windows = engine.diarize(short, num_speakers=50).speaker_count
    assert 1 < windows < 50
    assert engine.diarize(short, num_speakers=windows).speaker_count == windows


def test_silence_and_empty_audio_have_no_turns(engine: EmbeddedDiarizer) -> None:
    for audio in (np.zeros(0, dtype=np.float32), np.zeros(5 * speech.RATE, dtype=np.float32)):
        result = engine.diarize(audio)
        assert result.turns == () and result.speakers == () and result.engine == "embedded-diarizer"


def test_bad_requests_are_invalid_input(engine: EmbeddedDiarizer) -> None:
    for bad in (0, -2):
        with pytest.raises(InvalidInput):
            engine.diarize(np.zeros(16_000, dtype=np.float32), num_speakers=bad)
    with pytest.raises(InvalidInput):
        engine.diarize(np.zeros((2, 16_000), dtype=np.float32))
    with pytest.raises(InvalidInput):
        engine.diarize(np.full(16_000, np.nan, dtype=np.float32))
