"""ICU MessageFormat and the placeholder syntaxes games ship come out of translation intact."""

from __future__ import annotations

import re

import pytest

from deployments.engines.translation.apertium import ApertiumEngine
from deployments.engines.translation.base import TranslationRequest
from deployments.engines.translation.icu import MAX_VARIANTS, plan
from deployments.engines.translation.markup import find_spans
from deployments.engines.translation.safe import SafeTranslator
from tests.unit.translation.translation_support import WordEngine

COINS = "You have {count, plural, =0{no coins} one{# coin} other{{count} coins}} left."
NESTED = "{gender, select, male{He} female{She} other{They}} found {n, plural, one{# sword} other{# swords}}."
ORDINAL = "You finished {place, selectordinal, one{#st} two{#nd} few{#rd} other{#th}} in the race."


def shape(message: str) -> list[str]:
    """Argument heads and selectors in order of appearance (what translation must keep)."""
    return re.findall(r"\{\s*\w+\s*,\s*(?:plural|selectordinal|select)\s*,|(?:=\d+|\b\w+)\{", message)


def test_plain_text_and_broken_icu_are_left_to_the_placeholder_layer() -> None:
    assert plan("Hello {name}, you have {{count}} coins") is None
    assert plan("{count, plural, one{# coin}}") is None  # no `other` branch
    assert plan("{count, plural, one{# coin} other{# coins}") is None  # unclosed


def test_variants_are_whole_sentences_with_hash_as_a_placeholder() -> None:
    message = plan(COINS)
    assert message is not None
    assert message.leaves == ("You have no coins left.", "You have {icu_count_0} coin left.", "You have {count} coins left.")
    assert message.render(message.leaves) == (
        "{count, plural, =0{You have no coins left.} one{You have # coin left.} other{You have {count} coins left.}}"
    )


def test_nested_arguments_expand_to_every_combination() -> None:
    message = plan(NESTED)
    assert message is not None and len(message.leaves) == 6
    rendered = message.render(message.leaves)
    assert rendered.startswith("{gender, select, male{{n, plural, one{He found # sword.}")
    assert rendered.count("#") == 6 and plan(rendered) is not None


def test_too_many_variants_fall_back_to_plain_text() -> None:
    arguments = " ".join(f"{{a{i}, select, x{{x}} other{{y}}}}" for i in range(6))  # 2**6 variants
    assert MAX_VARIANTS < 2**6 and plan(arguments) is None


def words(texts: tuple[str, ...]) -> set[str]:
    """Words of the variants, placeholders left out."""
    return set(re.findall(r"[A-Za-z]{3,}", re.sub(r"\{[^{}]*\}", " ", " ".join(texts))))


@pytest.mark.parametrize("source", [COINS, NESTED, ORDINAL])
def test_translation_keeps_keywords_selectors_and_hash(source: str) -> None:
    engine = WordEngine()
    result = SafeTranslator(engine).translate(TranslationRequest((source, "Plain words"), "en", "es"))
    translated, plain = result.texts
    assert plain == "nialP sdrow"
    assert set(shape(translated)) == set(shape(source))
    before, after = plan(source), plan(translated)
    assert before is not None and after is not None and len(after.leaves) == len(before.leaves)
    assert translated.count("#") == before.render(before.leaves).count("#")
    assert ("{count}" in translated) == ("{count}" in source)
    assert words(before.leaves) and words(before.leaves).isdisjoint(words(after.leaves))  # every variant was translated
    assert len(engine.calls) == 1 and len(engine.calls[0]) == len(before.leaves) + 1  # one request, variants included


@pytest.mark.apertium
def test_icu_through_apertium(apertium: ApertiumEngine) -> None:
    result = SafeTranslator(apertium).translate(TranslationRequest((COINS,), "en", "es"))
    (translated,) = result.texts
    assert set(shape(translated)) == set(shape(COINS))
    assert translated.count("#") == 1 and "{count}" in translated
    assert plan(translated) is not None


#: One string per syntax games ship; every span must come back exactly once.
SYNTAXES = {
    "i18next": "Hello {{name}}, open $t(menu.settings) now",
    "printf": "Player %1$s scored %2$d points and %s bonus",
    "dotnet": "Level {0} of {1:N0} unlocked",
    "unity": "Press <color=#ffcc00>Start</color> to <b>play</b>",
    "renpy": "[player_name] says {b}hello{/b} to {color=#f00}you{/color}",
    "html": "Tom &amp; Jerry&#160;are <i>back</i>",
    "newline": "First line\\nSecond line\nThird line",
}


@pytest.mark.parametrize("name", sorted(SYNTAXES))
def test_every_placeholder_syntax_survives(name: str) -> None:
    source = SYNTAXES[name]
    spans = sorted(span.text for span in find_spans(source))
    assert spans, f"{name}: nothing protected"
    (translated,) = SafeTranslator(WordEngine()).translate(TranslationRequest((source,), "en", "es")).texts
    assert sorted(span.text for span in find_spans(translated)) == spans


@pytest.mark.apertium
@pytest.mark.parametrize("name", sorted(SYNTAXES))
def test_every_placeholder_syntax_survives_apertium(name: str, apertium: ApertiumEngine) -> None:
    source = SYNTAXES[name]
    (translated,) = SafeTranslator(apertium).translate(TranslationRequest((source,), "en", "es")).texts
    assert sorted(span.text for span in find_spans(translated)) == sorted(span.text for span in find_spans(source))
