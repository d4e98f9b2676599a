"""SafeTranslator: guarantees around engines that damage text, fail, or answer well."""

from __future__ import annotations

import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.errors import EngineFailure, InvalidInput, UnsupportedLanguage
from engines.translation.base import TranslationRequest, TranslationResult
from engines.translation.safe import SafeTranslator
from tests.unit.translation.translation_support import (
    FAST,
    DroppingEngine,
    FailingEngine,
    ManglingEngine,
    WordEngine,
    assert_preserved,
    markup_texts,
)


def request(*texts: str, target: str = "es") -> TranslationRequest:
    return TranslationRequest(tuple(texts), "en", target)


@FAST
@given(st.lists(markup_texts(), min_size=30, max_size=60), st.integers(0, 2**32 - 1))
def test_damaging_engine_still_yields_every_span(texts: list[str], seed: int) -> None:
    result = SafeTranslator(ManglingEngine(seed)).translate(request(*texts))
    assert len(result.texts) == len(texts)
    assert result.engine == "mangler" and not result.fallback
    for source, output in zip(texts, result.texts):
        assert_preserved(source, output)


@FAST
@given(st.lists(markup_texts(), min_size=30, max_size=60), st.integers(0, 2**32 - 1))
def test_damage_beyond_repair_goes_to_the_fallback(texts: list[str], seed: int) -> None:
    fallback = WordEngine()
    result = SafeTranslator(ManglingEngine(seed, damage=0.9), fallback).translate(request(*texts))
    for source, output in zip(texts, result.texts):
        assert_preserved(source, output)
    if result.fallback:
        assert result.engine == "words"
        assert result.texts == tuple(_clean(fallback, t) for t in texts)


def _clean(engine: WordEngine, text: str) -> str:
    return SafeTranslator(engine).translate(request(text)).texts[0]


def test_words_are_translated_and_spans_untouched() -> None:
    result = SafeTranslator(WordEngine()).translate(request("Hello {name}, <b>buy</b> %d apples!\nNow 👍"))
    assert result.texts == ("olleH {name}, <b>yub</b> %d selppa!\nwoN 👍",)


def test_losing_every_sentinel_uses_the_fallback_and_says_why(caplog: pytest.LogCaptureFixture) -> None:
    text = "Press {0} then {1} to <b>win</b> %d"
    with caplog.at_level(logging.WARNING):
        result = SafeTranslator(DroppingEngine(), WordEngine()).translate(request(text))
    assert result.fallback and result.engine == "words"
    assert result.texts == (_clean(WordEngine(), text),)
    assert "beyond repair" in caplog.text and "lost" in caplog.text


def test_without_fallback_the_repaired_output_is_returned() -> None:
    text = "Press {0} then {1} to <b>win</b> %d"
    result = SafeTranslator(DroppingEngine()).translate(request(text))
    assert not result.fallback
    assert_preserved(text, result.texts[0])


def test_engine_failure_uses_the_fallback(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        result = SafeTranslator(FailingEngine(), WordEngine()).translate(request("Hi {0}"))
    assert result == TranslationResult(("iH {0}",), engine="words", route=("en", "es"), fallback=True)
    assert "backend crashed" in caplog.text


def test_engine_failure_without_fallback_raises() -> None:
    with pytest.raises(EngineFailure):
        SafeTranslator(FailingEngine()).translate(request("Hi"))


def test_unsupported_pair_falls_back_but_bad_input_does_not() -> None:
    class Unsupported(WordEngine):
        def translate(self, req: TranslationRequest) -> TranslationResult:
            raise UnsupportedLanguage("no", source=req.source_lang, target=req.target_lang)

    class Rejecting(WordEngine):
        def translate(self, req: TranslationRequest) -> TranslationResult:
            raise InvalidInput("segment too long")

    assert SafeTranslator(Unsupported(), WordEngine()).translate(request("Hi")).fallback
    with pytest.raises(InvalidInput):
        SafeTranslator(Rejecting(), WordEngine()).translate(request("Hi"))


def test_both_failing_raises_the_fallbacks_error() -> None:
    with pytest.raises(EngineFailure):
        SafeTranslator(FailingEngine(), FailingEngine()).translate(request("Hi"))


def test_line_structure_and_edges_are_kept() -> None:
    texts = ("  one two\nthree\n\nfour  ", "\nlead", "trail\n", "a\r\nb")
    result = SafeTranslator(ManglingEngine(seed=7, damage=1.0)).translate(request(*texts))
    for source, output in zip(texts, result.texts):
        assert output.count("\n") == source.count("\n")
        assert output.count("\r\n") == source.count("\r\n")
        assert output[: len(source) - len(source.lstrip(" "))] == source[: len(source) - len(source.lstrip(" "))]
        assert len(output) - len(output.rstrip(" ")) == len(source) - len(source.rstrip(" "))


def test_segments_without_words_skip_the_engine() -> None:
    engine = WordEngine()
    result = SafeTranslator(engine).translate(request("", "{0}", "<b>%d</b> 👍", "Hi {0}"))
    assert result.texts == ("", "{0}", "<b>%d</b> 👍", "iH {0}")
    assert engine.calls == [("Hi <x0/>",)]


def test_wrong_number_of_answers_is_a_failure() -> None:
    class Short(WordEngine):
        def translate(self, req: TranslationRequest) -> TranslationResult:
            return TranslationResult(req.texts[:-1], engine=self.name)

    with pytest.raises(EngineFailure):
        SafeTranslator(Short()).translate(request("a", "b"))
    assert SafeTranslator(Short(), WordEngine()).translate(request("a", "b")).fallback


def test_pairs_cover_both_engines() -> None:
    class Other(WordEngine):
        def pairs(self) -> frozenset[tuple[str, str]]:
            return frozenset({("fr", "de")})

    assert SafeTranslator(WordEngine(), Other()).pairs() == WordEngine().pairs() | {("fr", "de")}
