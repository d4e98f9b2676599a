"""Cloning quality with the real engines: a clone sounds like its speaker to the encoder that did not fit it.

The sample is 20 s of one real speaker; the rest of that speaker's recording is held aside. The judge
(Resemblyzer, the encoder the fit never saw) must find the clone's speech closer to the held-aside speech
than to any other real speaker, and closer than the best stock voice (searched among the judge's five
nearest, each re-synthesized). Figures and margins: loadtests/bench_voice.py and docs/voice.md.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from engines.speaker.encoders import cosine
from engines.tts.base import VoiceStyle
from engines.voice.cloner import PREPARED_RATE
from engines.voice.stock import load_cached
from tests.support import speech

pytestmark = [pytest.mark.models, pytest.mark.deep]  # the similarity floors: make test-deep

SPEAKER = "two-cities"


@pytest.fixture(scope="module")
def cloner() -> Any:
    from engines.voice.kokoro_cloner import KokoroCloner

    engine = KokoroCloner()
    engine.start()
    return engine


def test_clone_is_closer_to_its_speaker_than_others_and_than_stock(cloner: Any) -> None:
    sample, held = speech.split_speaker(SPEAKER, 20.0)
    with tempfile.TemporaryDirectory() as folder:
        prepared = cloner.prepare(str(speech.write_wav(Path(folder) / "s.wav", sample, PREPARED_RATE)))
    assert prepared.gender == "male"
    fitted = cloner.fit(prepared, "en", prepared.gender)
    style = VoiceStyle.from_json(fitted.style)
    own = cloner.judge(style, held, "en")
    others = {s: cloner.judge(style, speech.speaker_audio(s), "en") for s in ("vk5qi", "ka9q", "hts-m", "nagg")}
    assert all(own > value for value in others.values()), (own, others)

    judge_stock = load_cached(cloner.kokoro, cloner.options.judge_encoder)
    assert judge_stock is not None
    target = cloner.judge_encoder.embed(held, PREPARED_RATE)
    nearest = sorted(judge_stock, key=lambda n: -cosine(judge_stock[n], target))[:5]
    best_stock = max(cloner.judge(f"kokoro.{n}", held, "en") for n in nearest)
    assert own > best_stock, (own, best_stock)
    assert 0.0 < fitted.quality_score <= 1.0
