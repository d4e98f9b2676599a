"""Glossary matching rules and enforcement through SafeTranslator."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.errors import InvalidInput
from engines.translation.apertium.engine import ApertiumEngine
from engines.translation.base import TranslationRequest
from engines.translation.glossary import Glossary, enforced
from engines.translation.safe import SafeTranslator
from tests.unit.translation.translation_support import (
    APERTIUM_BUDGET,
    FAST,
    VOCABULARY,
    WordEngine,
    assert_preserved,
    markup_texts,
)

GAME = Glossary(
    "en",
    "es",
    {"Dragon": "Dragón", "Dragon Slayer": "Matadragones", "HP": "PV", "café": "cafetería", "ゲーム": "juego", "C++": "Ce++"},
)


def found(glossary: Glossary, text: str) -> list[tuple[str, str]]:
    return [(s.text, s.output) for s in glossary.matches(text)]


def test_longest_term_wins() -> None:
    assert found(GAME, "The Dragon Slayer fights a Dragon") == [("Dragon Slayer", "Matadragones"), ("Dragon", "Dragón")]


def test_whole_words_only() -> None:
    assert found(GAME, "Dragons and Snapdragon and HPs") == []
    assert found(GAME, "cafés, le café.") == [("café", "cafetería")]


def test_terms_with_symbols_at_the_edges() -> None:
    assert found(GAME, "I code C++ daily, not C+") == [("C++", "Ce++")]


def test_case_insensitive_by_default_but_output_is_exact() -> None:
    assert found(GAME, "the dragon slayer and hp") == [("dragon slayer", "Matadragones"), ("hp", "PV")]


def test_case_sensitive_glossary() -> None:
    strict = Glossary("en", "es", {"Apple": "Apple Inc."}, case_sensitive=True)
    assert found(strict, "an apple from Apple") == [("Apple", "Apple Inc.")]


def test_inner_spacing_is_flexible() -> None:
    assert found(GAME, "Dragon  Slayer") == [("Dragon  Slayer", "Matadragones")]


def test_scripts_without_spaces_match_inside_text() -> None:
    assert found(GAME, "新しいゲームを始める") == [("ゲーム", "juego")]


def test_terms_differing_only_in_case_are_rejected() -> None:
    with pytest.raises(ValueError):
        Glossary("en", "es", {"Sword": "Espada", "sword": "espada"})
    Glossary("en", "es", {"Sword": "Espada", "sword": "espada"}, case_sensitive=True)


@pytest.mark.parametrize(
    ("source", "target", "applies"),
    [("en", "es", True), ("en-GB", "es", True), ("en", "es-MX", True), ("fr", "es", False), ("en", "pt", False)],
)
def test_a_primary_target_covers_its_variants(source: str, target: str, applies: bool) -> None:
    assert GAME.applies_to(source, target) is applies
    assert Glossary("en", "pt-BR", {}).applies_to("en", "pt") is False


def test_glossary_for_another_pair_is_rejected() -> None:
    with pytest.raises(InvalidInput):
        SafeTranslator(WordEngine()).translate(TranslationRequest(("Dragon",), "en", "pt"), glossary=GAME)


def test_markup_wins_over_an_overlapping_term() -> None:
    glossary = Glossary("en", "es", {"name": "nombre"})
    result = SafeTranslator(WordEngine()).translate(TranslationRequest(("{name} has a name",), "en", "es"), glossary)
    assert result.texts == ("{name} sah a nombre",)


def test_engine_never_sees_the_term() -> None:
    engine = WordEngine()
    result = SafeTranslator(engine).translate(TranslationRequest(("The Dragon Slayer <b>HP</b>",), "en", "es"), GAME)
    assert "Dragon" not in engine.calls[0][0] and "HP" not in engine.calls[0][0]
    assert result.texts == ("ehT Matadragones <b>PV</b>",)


TERMS = {"ancient sword": "Espada-Ancestral", "king": "Rey-Dorado", "gold": "Oro-Real", "blue light": "Luz-Azur"}


@st.composite
def texts_with_terms(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.one_of(markup_texts(), st.sampled_from(sorted(TERMS))), min_size=1, max_size=6))
    return " ".join(pieces)


@settings(FAST, max_examples=25)
@given(st.lists(texts_with_terms(), min_size=20, max_size=40))
def test_every_term_comes_out_exactly_through_a_word_engine(texts: list[str]) -> None:
    glossary = Glossary("en", "es", TERMS)
    result = SafeTranslator(WordEngine()).translate(TranslationRequest(tuple(texts), "en", "es"), glossary)
    for source, output in zip(texts, result.texts):
        assert enforced(glossary, source, output)
        for target in TERMS.values():
            assert output.count(target) == len([s for s in glossary.matches(source) if s.output == target])
        assert_preserved(source, output)


@pytest.mark.apertium
@APERTIUM_BUDGET
@given(st.lists(texts_with_terms(), min_size=40, max_size=60))
def test_every_term_comes_out_exactly_through_apertium(apertium: ApertiumEngine, texts: list[str]) -> None:
    glossary = Glossary("en", "pt", TERMS)
    result = SafeTranslator(apertium).translate(TranslationRequest(tuple(texts), "en", "pt-BR"), glossary)
    assert result.route == ("en", "es", "pt-BR")
    for source, output in zip(texts, result.texts):
        for target in TERMS.values():
            assert output.count(target) == len([s for s in glossary.matches(source) if s.output == target])
        assert_preserved(source, output)


def test_vocabulary_holds_the_terms() -> None:
    # The generated texts draw words from this list; the terms must be
    # able to occur in them by chance too, not only when inserted.
    assert {"king", "gold", "sword", "light"} <= set(VOCABULARY["en"])
