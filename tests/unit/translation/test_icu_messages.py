"""ICU MessageFormat and the placeholder syntaxes games ship come out of translation intact."""

from __future__ import annotations

import re

import pytest

from engines.translation.apertium.engine import ApertiumEngine
from engines.translation.base import TranslationRequest
from engines.translation.icu import MAX_VARIANTS, plan
from engines.translation.markup import find_spans
from engines.translation.safe import SafeTranslator
from tests.support.game_strings import COINS, NESTED, ORDINAL, SYNTAXES, shape
from tests.unit.translation.translation_support import WordEngine


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


def selectors(message: str) -> list[str]:
    """Branch selectors of a message, in order."""
    return re.findall(r"(=\d+|\b[a-z]+)\{", message)


def test_target_plural_categories_are_added_with_a_sample_count() -> None:
    message = plan(COINS, "ru")
    assert message is not None
    # Russian needs few (2) and many (5) besides one and other: shown with a sample count in place of `#`.
    assert message.leaves[3:] == ("You have 2 coins left.", "You have 5 coins left.")
    russian = ["Монет нет.", "У вас {icu_count_0} монета.", "У вас {count} монет.", "У вас 2 монеты.", "У вас 5 монет."]
    rendered = message.render(russian)
    assert selectors(rendered) == ["=0", "one", "few", "many", "other"]  # CLDR order, other last
    assert "few{У вас # монеты.}" in rendered and "many{У вас # монет.}" in rendered
    assert plan(rendered) is not None


def test_an_added_branch_whose_count_is_lost_repeats_other() -> None:
    message = plan("{n, plural, one{# coin} other{# coins}}", "pl")
    assert message is not None and len(message.leaves) == 4
    rendered = message.render(["{icu_count_0} moneta", "{icu_count_0} monet", "dwie monety", "5 monet"])
    assert "few{# monet}" in rendered  # "2" did not come back: the other branch stands in
    assert "many{# monet}" in rendered


@pytest.mark.parametrize(
    ("target", "expected"),
    [("es", {"one", "other"}), ("ja", {"one", "other"}), ("ar", {"zero", "one", "two", "few", "many", "other"})],
)
def test_only_categories_a_count_reaches_are_added(target: str, expected: set[str]) -> None:
    message = plan("{n, plural, one{# coin} other{# coins}}", target)
    assert message is not None
    assert set(selectors(message.render(message.leaves))) == expected  # es "many" needs a million: left to other


def test_select_and_offset_plurals_gain_nothing() -> None:
    for source in ("{g, select, male{He} other{They}} left", "{n, plural, offset:1 one{# other} other{# others}}"):
        assert plan(source, "ru") == plan(source)


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
