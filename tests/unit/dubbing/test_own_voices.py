"""``dubbing_voice=original``: each speaker's speech cut from the track, a voice fitted per speaker, fallbacks."""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile as sf

from engines.errors import SampleTooNoisy
from pipelines.dubbing.lines import DubLine
from pipelines.dubbing.own_voices import MAX_SPEECH_S, MIN_SPEECH_S, SAMPLE_RATE, fit_own_voices, speaker_speech
from pipelines.dubbing.voices import Speaker

RATE = 48_000


def track(seconds: float) -> np.ndarray:
    """A track whose every sample holds its own time in seconds, so a cut says where it came from."""
    return (np.arange(int(seconds * RATE)) / RATE).astype(np.float32)


LINES = [
    DubLine(0, 1.0, 6.0, "Hola.", "Hello.", "Speaker 1"),
    DubLine(1, 6.0, 8.0, "Sí.", "Yes.", "Speaker 2"),
    DubLine(2, 8.0, 16.0, "Vamos.", "Let's go.", "Speaker 1"),
]


def test_a_speakers_lines_are_cut_from_the_track_longest_first_and_resampled() -> None:
    speech, seconds = speaker_speech(LINES, "Speaker 1", track(20.0), RATE, start=0.0)
    # 8 s + 5 s of speech and a 0.25 s gap between them, at 16 kHz
    assert len(speech) / SAMPLE_RATE == pytest.approx(13.25, abs=0.05) and seconds == pytest.approx(13.0)
    assert speech[int(0.1 * SAMPLE_RATE)] == pytest.approx(8.1, abs=0.05)  # the longer line (8–16 s) comes first
    shifted, _ = speaker_speech(LINES, "Speaker 2", track(20.0), RATE, start=5.0)  # the track starts at 5 s
    assert shifted[int(0.5 * SAMPLE_RATE)] == pytest.approx(6.5 - 5.0, abs=0.05)


def test_a_sample_never_runs_past_the_cloners_limit() -> None:
    long = [DubLine(i, 10.0 * i, 10.0 * i + 9.0, "x", "x", "A") for i in range(10)]
    speech, seconds = speaker_speech(long, "A", track(100.0), RATE, start=0.0)
    assert MIN_SPEECH_S < seconds < len(speech) / SAMPLE_RATE <= MAX_SPEECH_S


async def test_each_speaker_with_enough_speech_gets_a_fitted_voice_the_others_keep_the_stock_one() -> None:
    asked: list[tuple[float, str, str]] = []

    async def fit(sample: bytes, lang: str, gender: str) -> dict:
        audio, rate = sf.read(io.BytesIO(sample), dtype="float32")
        asked.append((len(audio) / rate, lang, gender))
        return {"engine": "kokoro", "style": {"weights": {"af_heart": 1.0}}, "quality_score": 0.8}

    speakers = [Speaker("Speaker 1", 13.0, "male", 0.9), Speaker("Speaker 2", 2.0, "female", 0.9)]
    fractions: list[float] = []
    own = await fit_own_voices(LINES, speakers, track(20.0), RATE, 0.0, "es", fit, fractions.append)
    assert own["Speaker 1"].choice is not None and own["Speaker 1"].choice.origin == "original"
    assert own["Speaker 1"].choice.style == {"engine": "kokoro", "style": {"weights": {"af_heart": 1.0}}}
    assert own["Speaker 1"].choice.gender == "male" and own["Speaker 1"].public()["quality_score"] == 0.8
    assert own["Speaker 2"].choice is None and "2.0 s of speech" in own["Speaker 2"].public()["kept_stock_voice"]
    assert [(round(s, 1), lang, g) for s, lang, g in asked] == [(13.2, "es", "male")]  # only the one with enough speech
    assert fractions == [0.5, 1.0]


async def test_a_refused_sample_or_no_cloner_keeps_the_stock_voice_with_the_reason() -> None:
    async def noisy(sample: bytes, lang: str, gender: str) -> dict:
        raise SampleTooNoisy("The sample is too noisy (12 dB; at least 20 dB).")

    solo = [DubLine(0, 0.0, 12.0, "Hola.", "Hello.", None)]
    own = await fit_own_voices(solo, [], track(12.0), RATE, 0.0, "es", noisy, lambda _f: None)
    assert list(own) == [None] and own[None].choice is None  # no diarization: the recording is one speaker
    assert own[None].public()["kept_stock_voice"].startswith("The sample is too noisy")
    none = await fit_own_voices(solo, [], track(12.0), RATE, 0.0, "es", None, lambda _f: None)
    assert "not deployed" in none[None].public()["kept_stock_voice"]
