"""WhisperEngine without a real model: options, language mapping, result shaping, errors."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from pydantic import ValidationError

from engines.asr.whisper import (
    API_LANGUAGES,
    WhisperEngine,
    WhisperOptions,
    api_languages,
    to_api_language,
    to_whisper_language,
)
from engines.errors import EngineFailure, EngineUnavailable, UnsupportedLanguage
from engines.options import OptionsError

#: faster-whisper's language codes (multilingual models, large-v3 adds "yue").
# fmt: off
WHISPER_CODES = (
    "af", "am", "ar", "as", "az", "ba", "be", "bg", "bn", "bo", "br", "bs", "ca", "cs", "cy", "da", "de", "el", "en", "es",
    "et", "eu", "fa", "fi", "fo", "fr", "gl", "gu", "ha", "haw", "he", "hi", "hr", "ht", "hu", "hy", "id", "is", "it", "ja",
    "jw", "ka", "kk", "km", "kn", "ko", "la", "lb", "ln", "lo", "lt", "lv", "mg", "mi", "mk", "ml", "mn", "mr", "ms", "mt",
    "my", "ne", "nl", "nn", "no", "oc", "pa", "pl", "ps", "pt", "ro", "ru", "sa", "sd", "si", "sk", "sl", "sn", "so", "sq",
    "sr", "su", "sv", "sw", "ta", "te", "tg", "th", "tk", "tl", "tr", "tt", "uk", "ur", "uz", "vi", "yi", "yo", "zh", "yue",
)
# fmt: on


class FakeModel:
    """Stands in for faster_whisper.WhisperModel."""

    def __init__(self, languages=WHISPER_CODES, ranked=(("en", 0.9),), fail=False):
        self.supported_languages = list(languages)
        self.ranked = list(ranked)
        self.fail = fail
        self.calls: list[dict] = []

    def detect_language(self, audio, **kwargs):
        return self.ranked[0][0], self.ranked[0][1], self.ranked

    def transcribe(self, audio, **kwargs):
        self.calls.append(kwargs)
        if self.fail:

            def boom():
                raise RuntimeError("decoder exploded")
                yield  # pragma: no cover

            return boom(), None
        words = [
            SimpleNamespace(start=0.2, end=0.6, word=" Hello", probability=0.9),
            SimpleNamespace(start=0.7, end=1.1, word=" world.", probability=0.8),
        ]
        seg = SimpleNamespace(start=0.2, end=1.1, text=" Hello world.", words=words)
        return iter([seg]), SimpleNamespace(language=kwargs["language"])


def engine_with(model: FakeModel, **options) -> WhisperEngine:
    engine = WhisperEngine(model_dir="/nonexistent", **options)
    engine._use_model(model)
    return engine


AUDIO = np.zeros(16_000 * 2, dtype=np.float32)


# ------------------------------------------------------------------ options


def test_compute_type_defaults_follow_device():
    assert WhisperOptions(model_dir="m").compute_type == "int8"
    assert WhisperOptions(model_dir="m", device="cuda").compute_type == "float16"
    assert WhisperOptions(model_dir="m", device="cuda", compute_type="int8_float16").compute_type == "int8_float16"


def test_options_are_frozen_and_validated():
    opts = WhisperOptions(model_dir="m")
    with pytest.raises(ValidationError):
        opts.beam_size = 1  # type: ignore[misc]
    with pytest.raises(ValueError):
        WhisperOptions(model_dir="m", device="tpu")
    with pytest.raises(ValueError):
        WhisperOptions(model_dir="m", batch_size=-1)
    with pytest.raises(OptionsError, match="beam"):
        WhisperEngine(model_dir="m", beam=3)
    with pytest.raises(OptionsError, match="model_dir"):
        WhisperEngine()


def test_model_dir_is_taken_from_the_project_root(tmp_path):
    assert WhisperOptions(model_dir="models/whisper-base").resolved(tmp_path).model_dir == str(tmp_path / "models/whisper-base")
    assert WhisperOptions(model_dir="/models/large").resolved(tmp_path).model_dir == "/models/large"
    assert WhisperOptions(model_dir=tmp_path).model_dir == str(tmp_path)


def test_describe_echoes_resolved_options():
    engine = WhisperEngine(model_dir="models/whisper-base", batch_size=8, beam_size=2)
    described = engine.describe()
    assert described["engine"] == "faster-whisper"
    assert described["compute_type"] == "int8"
    assert (described["batch_size"], described["beam_size"], described["vad_filter"]) == (8, 2, True)


# ------------------------------------------------------------------ languages


def test_language_mapping():
    assert to_api_language("nn") == "no"
    assert to_api_language("no") == "no"
    assert to_api_language("yue") == "zh"
    assert to_api_language("haw") is None
    assert to_api_language("jw") is None  # Javanese is not an API language
    assert to_whisper_language("no", frozenset(WHISPER_CODES)) == "no"
    assert to_whisper_language("no", frozenset({"nn", "en"})) == "nn"


def test_multilingual_model_serves_every_api_language():
    assert len(API_LANGUAGES) == 49
    assert api_languages(WHISPER_CODES) == API_LANGUAGES
    for code in API_LANGUAGES:
        assert to_whisper_language(code, frozenset(WHISPER_CODES)) in WHISPER_CODES


def test_english_only_model_reports_only_english():
    engine = engine_with(FakeModel(languages=["en"]))
    assert engine.languages() == frozenset({"en"})
    assert engine.detect_language(AUDIO) == ("en", 1.0)
    with pytest.raises(UnsupportedLanguage) as info:
        engine.transcribe(AUDIO, language="de")
    assert info.value.source == "de"


def test_unknown_api_code_is_unsupported_even_if_whisper_knows_it():
    engine = engine_with(FakeModel())
    with pytest.raises(UnsupportedLanguage):
        engine.transcribe(AUDIO, language="haw")


def test_detection_sums_aliases_and_skips_unserved_languages():
    ranked = (("haw", 0.4), ("nn", 0.25), ("no", 0.2), ("en", 0.15))
    engine = engine_with(FakeModel(ranked=ranked))
    code, prob = engine.detect_language(AUDIO)
    assert code == "no"
    assert prob == pytest.approx(0.45)


# ------------------------------------------------------------------ transcription


def test_transcribe_shifts_times_by_offset_and_echoes_options():
    model = FakeModel()
    engine = engine_with(model, beam_size=3)
    result = engine.transcribe(AUDIO, language="en", offset=30.0, initial_prompt="Names")
    assert result.offset == 30.0 and result.duration == pytest.approx(2.0)
    assert [w.start for w in result.words] == pytest.approx([30.2, 30.7])
    assert result.segments[0].end == pytest.approx(31.1)
    assert result.text == "Hello world."
    assert result.options is engine.options and result.engine == "faster-whisper"
    assert model.calls[0]["beam_size"] == 3 and model.calls[0]["initial_prompt"] == "Names"
    assert model.calls[0]["word_timestamps"] is True and model.calls[0]["vad_filter"] is True


def test_auto_language_is_detected_and_passed_to_the_decoder():
    model = FakeModel(ranked=(("nn", 0.7), ("en", 0.3)))
    result = engine_with(model).transcribe(AUDIO)
    assert (result.language, result.language_probability) == ("no", pytest.approx(0.7))
    assert model.calls[0]["language"] == "no"


def test_batched_pipeline_is_used_when_batch_size_set():
    model, batched = FakeModel(), FakeModel()
    engine = WhisperEngine(model_dir="/nonexistent", batch_size=8)
    engine._use_model(model, batched)
    engine.transcribe(AUDIO, language="en")
    assert model.calls == [] and batched.calls[0]["batch_size"] == 8


def test_decoder_error_is_engine_failure_with_cause():
    engine = engine_with(FakeModel(fail=True))
    with pytest.raises(EngineFailure) as info:
        engine.transcribe(AUDIO, language="en")
    assert isinstance(info.value.__cause__, RuntimeError)


def test_missing_model_is_unavailable_with_cause(tmp_path):
    engine = WhisperEngine(model_dir=str(tmp_path / "missing"))
    with pytest.raises(EngineUnavailable) as info:
        engine.start()
    assert isinstance(info.value.__cause__, FileNotFoundError)
    with pytest.raises(EngineUnavailable):
        engine.transcribe(AUDIO, language="en")


def test_batched_without_vad_gets_windows_cut_at_silences(make_signal):
    audio = make_signal(("tone", 24), ("gap", 0.8), ("tone", 24), ("gap", 0.8), ("tone", 20))
    model, batched = FakeModel(), FakeModel()
    engine = WhisperEngine(model_dir="/nonexistent", batch_size=4, vad_filter=False)
    engine._use_model(model, batched)
    engine.transcribe(audio, language="en")
    windows = batched.calls[0]["clip_timestamps"]
    assert windows[0]["start"] == 0.0 and windows[-1]["end"] == pytest.approx(audio.size / 16_000)
    assert all(w["end"] - w["start"] <= 30.0 for w in windows)
    assert [round(w["end"], 1) for w in windows[:-1]] == [24.4, 49.2]
