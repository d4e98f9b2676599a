"""Piper and espeak-ng, heard back: Whisper (base, int8, CPU) transcribes what they say.

Skips when the Piper voice or Whisper model is not assembled under ``models/``,
or espeak-ng is not installed.
"""

from __future__ import annotations

import io
import threading
import time
import wave
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from engines.errors import EngineFailure, InvalidInput, UnsupportedLanguage
from engines.tts.base import VoiceStyle
from tests.support.text import words

pytestmark = pytest.mark.models

MODELS = Path(__file__).resolve().parents[3] / "models"
PIPER_DIR = MODELS / "piper-en_US-joe-medium"
WHISPER_DIR = MODELS / "whisper-base"
PIPER_VOICE = "piper.en_us_joe"

ENGLISH = (
    "The weather is nice today, so we will walk to the park. "
    "Please bring me a glass of water and two slices of bread. "
    "My brother works at the hospital near the train station. "
    "Can you tell me where the library is?"
)
SPANISH = (
    "Hola, me llamo Carlos y vivo en Madrid. ¿Dónde está la estación de tren? "
    "Mi hermano trabaja en un hospital grande. El perro come carne todos los días."
)
TEXTS = {"en": ENGLISH, "es": SPANISH}

#: Word error rate ceilings. Measured (whisper-base, 2 threads): Piper 0.00 on ENGLISH; espeak-ng
#: female/male 0.00/0.06 on ENGLISH and 0.18/0.11 on SPANISH. espeak-ng is robotic, hence its looser bound.
PIPER_MAX_WER = 0.2
ESPEAK_MAX_WER = 0.35


def wer(reference: str, heard: str) -> float:
    """Word error rate: word-level edit distance over the reference's length."""
    ref, hyp = words(reference), words(heard)
    row = list(range(len(hyp) + 1))
    for i, ref_word in enumerate(ref, 1):
        diagonal, row[0] = row[0], i
        for j, hyp_word in enumerate(hyp, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (ref_word != hyp_word))
    return row[-1] / max(len(ref), 1)


def assert_plausible(samples: np.ndarray, rate: int, text: str) -> None:
    assert samples.dtype == np.float32 and samples.ndim == 1
    assert rate == 22_050
    assert float(np.max(np.abs(samples))) <= 1.0
    seconds_per_char = len(samples) / rate / len(text)
    assert 0.03 <= seconds_per_char <= 0.2, seconds_per_char


@pytest.fixture(scope="module")
def piper() -> Iterator:
    if not (PIPER_DIR / "en_US-joe-medium.onnx").is_file():
        pytest.skip("Piper voice not assembled (make setup)")
    from engines.tts.piper import PiperEngine

    engine = PiperEngine(model_dir=str(PIPER_DIR), threads=2)
    engine.start()
    yield engine
    engine.shutdown()


@pytest.fixture(scope="module")
def espeak() -> Iterator:
    from engines.errors import EngineUnavailable
    from engines.tts.espeak import EspeakEngine

    engine = EspeakEngine()
    try:
        engine.start()
    except EngineUnavailable as exc:
        pytest.skip(str(exc))
    yield engine
    engine.shutdown()


@pytest.fixture(scope="module")
def hear() -> Callable[[np.ndarray, int, str], str]:
    """``hear(samples, rate, lang)`` → what Whisper base understands."""
    if not (WHISPER_DIR / "model.bin").is_file():
        pytest.skip("Whisper base not assembled (make setup)")
    faster_whisper = pytest.importorskip("faster_whisper")
    model = faster_whisper.WhisperModel(str(WHISPER_DIR), device="cpu", compute_type="int8", cpu_threads=2)

    def hear(samples: np.ndarray, rate: int, lang: str) -> str:
        buffer = io.BytesIO()
        with wave.open(buffer, "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(rate)
            wav.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
        buffer.seek(0)
        audio = faster_whisper.decode_audio(buffer, sampling_rate=16_000)  # resampled properly (PyAV)
        segments, _ = model.transcribe(audio, language=lang, vad_filter=False, condition_on_previous_text=False)
        return " ".join(segment.text for segment in segments)

    return hear


# --------------------------------------------------------------------------- Piper


def test_piper_offers_its_voice(piper):
    (voice,) = piper.voices()
    assert (voice.id, voice.languages, voice.gender, voice.sample_rate) == (PIPER_VOICE, ("en",), "male", 22_050)
    assert list(piper.languages()) == ["en"]
    assert piper.describe() == {"engine": "piper", "model": "en_US-joe-medium.onnx", "model_dir": str(PIPER_DIR), "threads": 2}


def test_piper_ids_are_padded_between_bos_and_eos():
    from engines.tts.piper import PiperVoiceConfig

    if not (PIPER_DIR / "en_US-joe-medium.onnx.json").is_file():
        pytest.skip("Piper voice not assembled (make setup)")
    config = PiperVoiceConfig.load(PIPER_DIR / "en_US-joe-medium.onnx.json")
    assert (config.sample_rate, config.espeak_voice, config.language) == (22_050, "en-us", "en")
    table = config.phoneme_id_map
    ids = config.ids("hˈɛloʊ, wˈɜːld.")
    assert ids[:2] == [*table["^"], *table["_"]] and ids[-1:] == table["$"]
    assert ids[1:-1:2] == table["_"] * ((len(ids) - 1) // 2)
    assert len(ids) == 3 + 2 * len("hˈɛloʊ, wˈɜːld.")


def test_piper_speaks_english_intelligibly(piper, hear):
    started = time.perf_counter()
    samples, rate = piper.speak(ENGLISH, PIPER_VOICE, "en")
    elapsed = time.perf_counter() - started
    assert_plausible(samples, rate, ENGLISH)
    heard = hear(samples, rate, "en")
    assert wer(ENGLISH, heard) <= PIPER_MAX_WER, heard
    assert elapsed / (len(samples) / rate) < 1.0  # ~0.07 on 2 idle cores; loose for loaded CI machines


def test_piper_speed_changes_duration(piper):
    text = "Speed changes how long this sentence takes to say."
    fast, _ = piper.speak(text, PIPER_VOICE, "en", speed=2.0)
    slow, _ = piper.speak(text, PIPER_VOICE, "en", speed=0.5)
    assert len(fast) / len(slow) < 0.6


def test_piper_refuses_what_it_cannot_say(piper):
    with pytest.raises(UnsupportedLanguage):
        piper.speak("Guten Tag.", PIPER_VOICE, "de")
    for text in ("", "   ", "..."):
        with pytest.raises(InvalidInput):
            piper.speak(text, PIPER_VOICE, "en")
    for voice in ("piper.nobody", VoiceStyle(weights={"af_heart": 1.0})):
        with pytest.raises(InvalidInput):
            piper.speak("Hello.", voice, "en")


def test_piper_concurrent_calls(piper):
    texts = ["One small step.", "The cat sat on the mat, quietly.", "Where are you going?", "Bread, milk and eggs."]
    expected = [piper._phonemizer.sentences(text, "en-us") for text in texts]
    results: dict[int, list] = {}

    def work(i: int) -> None:
        results[i] = [piper._phonemizer.sentences(texts[i], "en-us") for _ in range(20)]
        results[i].append(piper.speak(texts[i], PIPER_VOICE, "en"))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(results) == [0, 1, 2, 3]
    for i, runs in results.items():
        assert runs[:-1] == [expected[i]] * 20  # espeak's global state never leaks between threads
        samples, rate = runs[-1]
        assert len(samples) / rate > 0.5


# --------------------------------------------------------------------------- espeak-ng


def test_espeak_offers_two_voices_per_language(espeak):
    languages = list(espeak.languages())
    assert {"en", "es", "fr", "de", "it", "pt", "ru", "no"} <= set(languages)
    ids = [voice.id for voice in espeak.voices()]
    assert ids == [f"espeak.{lang}.{gender}" for lang in languages for gender in ("female", "male")]
    assert {voice.sample_rate for voice in espeak.voices()} == {22_050}


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("gender", ["female", "male"])
def test_espeak_is_intelligible(espeak, hear, lang, gender):
    text = TEXTS[lang]
    samples, rate = espeak.speak(text, f"espeak.{lang}.{gender}", lang)
    assert_plausible(samples, rate, text)
    heard = hear(samples, rate, lang)
    assert wer(text, heard) <= ESPEAK_MAX_WER, heard


def test_espeak_genders_sound_different(espeak):
    for lang in ("en", "fr", "de", "no"):
        female, _ = espeak.speak("One two three four.", f"espeak.{lang}.female", lang)
        male, _ = espeak.speak("One two three four.", f"espeak.{lang}.male", lang)
        assert female.shape != male.shape or not np.array_equal(female, male), lang


def test_espeak_speed_changes_duration(espeak):
    text = "La velocidad cambia la duración de esta frase."
    fast, _ = espeak.speak(text, "espeak.es.female", "es", speed=2.0)
    slow, _ = espeak.speak(text, "espeak.es.female", "es", speed=0.5)
    assert len(fast) / len(slow) < 0.6


def test_a_voice_with_a_measured_rate_reads_slower_and_only_that_voice(espeak):
    from engines.tts.espeak import EspeakEngine

    slower = EspeakEngine(voice_wpm={"espeak.tr.female": 115})
    slower.start()
    text = "Yarın saat dokuzda buluşalım mı?"
    base, _ = espeak.speak(text, "espeak.tr.female", "tr")
    slow, _ = slower.speak(text, "espeak.tr.female", "tr")
    male_base, _ = espeak.speak(text, "espeak.tr.male", "tr")
    male, _ = slower.speak(text, "espeak.tr.male", "tr")
    assert 1.25 < len(slow) / len(base) < 1.8  # 175 / 115 = 1.52 words per minute (pauses do not all stretch)
    assert len(male) == len(male_base)
    half, _ = slower.speak(text, "espeak.tr.female", "tr", speed=2.0)  # speed scales the voice's own rate
    assert len(half) < 0.65 * len(slow)


def test_a_rate_for_something_not_an_espeak_voice_is_refused():
    from engines.options import OptionsError
    from engines.tts.espeak import EspeakEngine

    for bad in ({"kokoro.af_heart": 120}, {"espeak.tr": 120}, {"espeak.tr.female": 20}):
        with pytest.raises(OptionsError, match="voice_wpm"):
            EspeakEngine(voice_wpm=bad)


def test_espeak_refuses_what_it_cannot_say(espeak):
    with pytest.raises(UnsupportedLanguage):
        espeak.speak("Mabuhay.", "espeak.en.female", "xx")
    for text in ("", "  \n ", "..."):
        with pytest.raises(InvalidInput):
            espeak.speak(text, "espeak.en.female", "en")
    for voice in ("espeak.en", "espeak.en.child", "kokoro.af_heart"):
        with pytest.raises(InvalidInput):
            espeak.speak("Hello.", voice, "en")


def test_espeak_text_never_reaches_the_command_line(espeak):
    samples, _ = espeak.speak("--version; rm -rf / $(reboot) `id` -v xx", "espeak.en.male", "en")
    assert len(samples) > 22_050  # all of it read aloud, none of it an option or a shell command


def test_espeak_timeout_is_a_failure(espeak):
    engine = type(espeak)()
    engine.start()
    engine.options = engine.options.model_copy(update={"timeout_s": 1e-4})
    with pytest.raises(EngineFailure):
        engine.speak("This takes longer than a tenth of a millisecond.", "espeak.en.female", "en")


def test_espeak_concurrent_calls(espeak):
    results: dict[int, tuple[np.ndarray, int]] = {}
    langs = ["en", "es", "de", "fr"]

    def work(i: int) -> None:
        results[i] = espeak.speak("Eins, zwei, drei. One, two, three.", f"espeak.{langs[i]}.male", langs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(results) == [0, 1, 2, 3]
    assert all(len(samples) / rate > 0.5 for samples, rate in results.values())
