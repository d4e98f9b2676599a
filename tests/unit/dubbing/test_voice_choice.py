"""Which voice speaks which line: tiers, genders, distinct voices per speaker, fitted voices."""

from __future__ import annotations

import itertools

import pytest

from engines.tts.voice_table import VoiceTable
from pipelines.dubbing.voices import FITTED_MATCH, FittedVoice, Speaker, choose_voices

CATALOGUE = [
    {"voice_id": "kokoro.ef_dora", "gender": "female"},
    {"voice_id": "kokoro.em_alex", "gender": "male"},
    {"voice_id": "kokoro.em_santa", "gender": "male"},
    {"voice_id": "espeak.es.female", "gender": "female"},
    {"voice_id": "espeak.es.male", "gender": "male"},
]
RANKING = VoiceTable(
    ranked={"es": {"female": ["kokoro.ef_dora", "espeak.es.female"], "male": ["kokoro.em_santa", "kokoro.em_alex"]}}
)


def test_tiers_and_genders_without_diarization() -> None:
    def voice(name: str) -> str | None:
        return choose_voices(name, "es", CATALOGUE, RANKING)[None].voice

    assert voice("default-female") == "kokoro.ef_dora"  # the service's own default voice of that gender
    assert voice("default-male") == "kokoro.em_alex"
    assert voice("professional-male") == "kokoro.em_santa"  # the best measured
    assert voice("professional-female") == "kokoro.ef_dora"
    # Nothing measured for the language: professional falls back to the default.
    assert choose_voices("professional-male", "es-MX", CATALOGUE, VoiceTable())[None].voice == "kokoro.em_alex"
    assert VoiceTable(ranked={"es": {"male": ["kokoro.em_santa"]}}).order("es-MX", "male") == ["kokoro.em_santa"]


def test_each_speaker_gets_a_distinct_voice_of_their_gender() -> None:
    speakers = [
        Speaker("Speaker 1", 30.0, "male", 0.9),
        Speaker("Speaker 2", 20.0, "female", 0.9),
        Speaker("Speaker 3", 10.0, "male", 0.9),
        Speaker("Speaker 4", 5.0, "male", 0.9),
        Speaker("Speaker 5", 4.0, "female", 0.2),  # unsure: the requested gender
    ]
    choices = choose_voices("default-female", "es", CATALOGUE, RANKING, speakers)
    for speaker in speakers[:4]:
        assert choices[speaker.name].gender == speaker.gender
    assert choices["Speaker 5"].gender == "female"
    heard = [(c.voice, c.semitones) for name, c in choices.items() if name is not None]
    assert len(set(heard)) == len(heard)  # no two speakers sound the same (a reused voice is pitched apart)
    assert {choices["Speaker 1"].voice, choices["Speaker 3"].voice} == {"kokoro.em_alex", "kokoro.em_santa"}


def test_a_language_with_one_gender_voices_everyone_with_it() -> None:
    catalogue = [{"voice_id": "kokoro.ff_siwis", "gender": "female"}]
    speakers = [Speaker("Speaker 1", 3.0, "male", 0.95), Speaker("Speaker 2", 2.0, "female", 0.95)]
    choices = choose_voices("default-male", "fr", catalogue, VoiceTable(), speakers)
    assert {c.voice for c in choices.values()} == {"kokoro.ff_siwis"}
    assert choices["Speaker 1"].semitones != choices["Speaker 2"].semitones
    with pytest.raises(ValueError):
        choose_voices("default-male", "fr", [], VoiceTable())


def test_fitted_voice_replaces_the_speaker_it_matches_best() -> None:
    near = (1.0, 0.0, 0.0)
    speakers = [Speaker("Speaker 1", 9.0, "male", 0.9, near), Speaker("Speaker 2", 8.0, "male", 0.9, (0.0, 1.0, 0.0))]
    close = FittedVoice("voice_a", "male", {"engine": "kokoro", "style": {}}, (0.95, 0.2, 0.0))
    far = FittedVoice("voice_b", "male", {"engine": "kokoro", "style": {}}, (0.0, 0.5, 0.85))  # cosine 0.51 with Speaker 2
    choices = choose_voices("default-male", "es", CATALOGUE, RANKING, speakers, [close, far])
    assert choices["Speaker 1"].origin == "fitted:voice_a" and choices["Speaker 1"].voice is None
    assert choices["Speaker 1"].style == close.style
    assert choices["Speaker 2"].origin == "default" and choices["Speaker 2"].voice is not None
    assert 0.5 < FITTED_MATCH < 0.97


@pytest.mark.parametrize("count", [1, 2, 3, 6, 9])
def test_many_speakers_stay_distinct(count: int) -> None:
    genders = itertools.cycle(["male", "female", "male"])
    speakers = [Speaker(f"Speaker {k + 1}", 10.0 - k, next(genders), 0.9) for k in range(count)]
    choices = choose_voices("professional-female", "es", CATALOGUE, RANKING, speakers)
    heard = [(choices[s.name].voice, choices[s.name].semitones) for s in speakers]
    assert len(set(heard)) == count
