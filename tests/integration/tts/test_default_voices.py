"""Each language's measured default voice, heard back: Whisper base recognizes the language and the words.

The voice table (``configs/voices.yaml``, ``calibration/score_voices.py``) picks the default voice of every
language; here a few languages' defaults, Kokoro's own and espeak-ng's, read project sentences through the
CPU profile's engines, and Whisper base (int8) must hear the language and most words. The floors sit well
below the measured values (docs/voices.md), so another CPU's rounding cannot fail them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soxr
import yaml

from engines.asr.whisper import WhisperEngine
from engines.registry import start_engine
from engines.tts.base import TtsEngine
from engines.tts.synthesizer import SpeechRequest, Synthesizer
from engines.tts.voice_table import VoiceTable
from tests.integration.conftest import LOCAL_ARGS
from tests.support.text import words
from tests.support.tiers import sweep

pytestmark = pytest.mark.models

ROOT = Path(__file__).resolve().parents[3]
SENTENCES = yaml.safe_load((ROOT / "tests" / "data" / "speech" / "round_trip.yaml").read_text(encoding="utf-8"))
#: Languages and genders checked: Kokoro's own voices, and espeak-ng's German, which the table chose over Kokoro's
#: borrowed voices (sentence by sentence, the measured defaults of sq, sw and pl fall below these floors).
CASES = [("en", "female"), ("es", "male"), ("pt", "female"), ("de", "male")]
#: Share of a sentence's words Whisper must hear, and of the sentences it must name the language of.
MIN_WORD_RECALL = 0.5
MIN_LANGUAGE_SHARE = 0.5


@pytest.fixture(scope="module")
def synthesizer() -> Iterator[Synthesizer]:
    engines = {}
    for spec in LOCAL_ARGS["tts"]["engines"]:
        engine = start_engine(spec["engine"], spec.get("options"), TtsEngine)
        engines[engine.name] = engine
    yield Synthesizer(engines, LOCAL_ARGS["tts"].get("defaults"), VoiceTable.load(ROOT / "configs" / "voices.yaml"))
    for engine in engines.values():
        engine.shutdown()


@pytest.fixture(scope="module")
def whisper() -> Iterator[WhisperEngine]:
    engine = WhisperEngine(model_dir=str(ROOT / "models" / "whisper-base"), cpu_threads=2, compute_type="int8", vad_filter=False)
    engine.start()
    yield engine
    engine.shutdown()


def recall(reference: str, heard: str) -> float:
    """Share of the reference's words (numbers aside: they may come back as digits) found in what was heard."""
    wanted = [w for w in words(reference) if not any(c.isdigit() for c in w)]
    got = set(words(heard))
    return sum(w in got for w in wanted) / max(len(wanted), 1)


@pytest.mark.parametrize(("lang", "gender"), sweep(CASES, keep={"en", "es", "de"}, key=lambda c: c[0]))
def test_the_default_voice_is_heard_in_its_language(
    synthesizer: Synthesizer, whisper: WhisperEngine, lang: str, gender: str
) -> None:
    table = synthesizer.table
    plan = synthesizer.plan(SpeechRequest(text="x", lang=lang, gender=gender))
    assert plan.voice_id == table.default(lang, gender), "the measured default is the voice used"
    named, recalls = 0, []
    for text in SENTENCES[lang][:3]:
        audio, rate = synthesizer.render(SpeechRequest(text=text, lang=lang, gender=gender, output_format="wav"))
        clip = soxr.resample(audio, rate, 16_000).astype(np.float32)
        named += whisper.detect_language(clip)[0] == lang
        heard = " ".join(s.text for s in whisper.transcribe(clip, lang, 0.0).segments)
        recalls.append(recall(text, heard))
    assert named / 3 >= MIN_LANGUAGE_SHARE, (plan.voice_id, named)
    assert float(np.mean(recalls)) >= MIN_WORD_RECALL, (plan.voice_id, recalls)
