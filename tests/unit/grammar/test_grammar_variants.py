"""Regional variants without engines: detection from spelling markers, the default, rule lists per variant,
the worker arguments for a variant, Korean compounds, and the served grammar languages of the profiles."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.grammar import variants
from engines.grammar.checker import Catalogue, LanguageSupport
from engines.grammar.hunspell_engine import DICTIONARIES, _compound
from engines.grammar.languagetool_types import lt_code, lt_engine_args
from engines.grammar.lingotweaker_engine import PACKS, _checks
from engines.grammar.types import Rule
from serve_app.schemas.grammar import RulesResponse

PROJECT_ROOT = Path(__file__).resolve().parents[3]

CATALOG = yaml.safe_load((PROJECT_ROOT / "configs" / "languages.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("lang", "text", "variant"),
    [
        ("pt", "Meu irmão pegou o ônibus e chegou atrasado a uma reunião econômica.", "pt-BR"),
        ("pt", "A equipe registrou o fato no sistema.", "pt-BR"),
        ("pt", "O meu irmão apanhou o autocarro para a reunião económica.", "pt-PT"),
        ("pt", "A equipa registou o facto no sistema.", "pt-PT"),
        ("pt", "Ela está a preparar o jantar para os miúdos.", "pt-PT"),
        ("en", "The colour of the centre was chosen by the neighbours.", "en-GB"),
        ("en", "The color of the center was chosen by the neighbors.", "en-US"),
        ("en", "Whilst travelling, she realised she had lost her cheque book.", "en-GB"),
    ],
)
def test_the_variant_is_read_from_spelling_markers(lang: str, text: str, variant: str) -> None:
    assert variants.detect(lang, text) == variant
    assert variants.resolve(lang, text) == variant


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("pt", "Ela deixou a bolsa no carro."),  # no marker
        ("pt", "O ônibus e o autocarro são a mesma coisa."),  # one marker of each: mixed
        ("en", "The cat sat on the mat."),
        ("en", "We organized the meeting."),  # -ize is Oxford British too: not enough
    ],
)
def test_without_a_clear_marker_the_larger_variant_is_the_default(lang: str, text: str) -> None:
    assert variants.detect(lang, text) is None
    assert variants.resolve(lang, text) == {"pt": "pt-BR", "en": "en-US"}[lang]


def test_a_given_variant_or_a_language_without_variants_is_kept() -> None:
    assert variants.resolve("pt-PT", "Meu irmão pegou o ônibus.") == "pt-PT"
    assert variants.resolve("en-GB", "The color of the center.") == "en-GB"
    assert variants.resolve("de", "Die Farbe des Zentrums.") == "de"
    assert variants.resolve("pt", "A equipa registou o facto.", served={"pt", "pt-BR"}) == "pt"  # pt-PT not served


@settings(deadline=None)  # the first example reads the marker file and compiles its patterns
@given(st.text(max_size=200))
def test_detection_always_answers_a_variant_of_the_language(text: str) -> None:
    for lang, markers in variants.table().items():
        assert variants.detect(lang, text) in (None, *markers.variants)
        assert variants.resolve(lang, text) in markers.variants


def test_every_variant_of_the_language_list_is_a_grammar_code() -> None:
    """en-US/en-GB, pt-BR/pt-PT, zh-CN/zh-TW, fr-CA, es-MX, nl-BE: LanguageTool serves each (its own rules
    where it has them), so the edge accepts each as the grammar language."""
    named = {v for listed in CATALOG["variants"].values() for v in listed}
    assert named <= set(PACKS)
    for language, markers in variants.table().items():
        assert set(markers.variants) <= named and markers.default in markers.variants
        assert language in CATALOG["variants"]


def test_each_variant_loads_its_own_languagetool_rules_and_dictionary() -> None:
    assert lt_engine_args("pt-BR") == ("pt", "pt-BR") and lt_engine_args("pt-PT") == ("pt", "pt-PT")
    assert lt_engine_args("en-GB") == ("en", "en-GB") and lt_engine_args("en") == ("en", "en-US")
    assert lt_engine_args("pt") == ("pt", "pt-BR")  # a bare code is its default variant
    assert lt_engine_args("ru") == ("ru-RU",) and lt_engine_args("zh-TW") == ("zh-CN",)
    assert lt_code("fr-CA") == "fr" and lt_code("nl-BE") == "nl-BE"
    assert DICTIONARIES["pt"] == DICTIONARIES["pt-BR"] == "pt_BR" and DICTIONARIES["pt-PT"] == "pt_PT"


def test_a_variants_own_rule_is_listed_for_that_variant_only() -> None:
    served = frozenset({"pt", "pt-BR", "pt-PT", "en", "en-US", "en-GB", "nl", "nl-BE", "de"})
    european = frozenset({"pt-PT"})
    assert _checks("pt-PT", european, served) and not _checks("pt-BR", european, served)
    assert _checks("pt", european, served)  # a bare pt may be read as European
    assert _checks("pt-BR", frozenset(), served)  # the language's common rules: every variant
    assert not _checks("pt", frozenset({"pt-MZ"}), served)  # a variant never loaded
    assert _checks("nl", frozenset({"nl-NL"}), served) and not _checks("nl-BE", frozenset({"nl-NL"}), served)
    assert _checks("de", frozenset({"de-CH"}), served)  # kept under the language, as before


def test_the_rule_list_of_a_variant_leaves_out_the_other_variants_rules() -> None:
    rules = (
        Rule("POSSESSIVE_WITHOUT_ARTICLE", "grammar", "error", "d", "languagetool", ("pt", "pt-PT")),
        Rule("PT_BR_SIMPLE_REPLACE", "style", "info", "d", "languagetool", ("pt", "pt-BR")),
        Rule("EN_HARPER_RULE", "grammar", "warning", "d", "harper", ("en",)),
        Rule("PORTUGUESE_WORD_REPEAT_RULE", "grammar", "warning", "d", "languagetool", ("pt", "pt-BR", "pt-PT")),
        Rule("REPEATED_WORD", "grammar", "warning", "d", "grammar-rules", ()),
    )
    catalogue = Catalogue(rules, (LanguageSupport("pt", True, True, True, ("languagetool",)),))
    ids = {lang: {r.id for r in RulesResponse.from_catalogue(catalogue, lang, None).rules} for lang in ("pt-BR", "pt-PT", "pt")}
    assert "POSSESSIVE_WITHOUT_ARTICLE" not in ids["pt-BR"] and "PT_BR_SIMPLE_REPLACE" in ids["pt-BR"]
    assert "POSSESSIVE_WITHOUT_ARTICLE" in ids["pt-PT"] and "PT_BR_SIMPLE_REPLACE" not in ids["pt-PT"]
    assert {r.id for r in rules} - {"EN_HARPER_RULE"} == ids["pt"]
    assert {"PORTUGUESE_WORD_REPEAT_RULE", "REPEATED_WORD"} <= ids["pt-BR"] & ids["pt-PT"]
    by_id = {r.id: r for r in rules}
    assert by_id["EN_HARPER_RULE"].serves("en-GB") and not by_id["EN_HARPER_RULE"].serves("pt-BR")  # each variant's
    assert by_id["POSSESSIVE_WITHOUT_ARTICLE"].serves("pt") and not by_id["PT_BR_SIMPLE_REPLACE"].serves("pt-PT")


class _Speller:
    def __init__(self, known: set[str]) -> None:
        self.known = known

    def spell(self, word: str) -> bool:
        return word in self.known


def test_a_korean_compound_of_dictionary_words_is_spelled_right() -> None:
    speller = _Speller({"서울시", "의회는", "공립", "학교를", "홈", "팀은", "축구", "팀"})
    for word in ("서울시의회는", "공립학교를", "홈팀은", "축구팀"):
        assert _compound(speller, word), word
    for word in ("학교릉", "홈팀읃", "팀홈"):
        assert not _compound(speller, word), word


def test_the_served_grammar_languages_reach_42() -> None:
    """What the CPU profile serves: LanguageTool's packs, the Hunspell dictionaries it loads, Voikko (fi)."""
    config = yaml.safe_load((PROJECT_ROOT / "configs" / "local.yaml").read_text(encoding="utf-8"))
    engines = {e["engine"]: e.get("options") or {} for e in config["applications"][0]["args"]["grammar"]["engines"]}
    served = {c.split("-")[0] for c in PACKS} | {c.split("-")[0] for c in engines["hunspell"]["languages"]}
    served |= {"fi"} if "voikko" in engines else set()
    assert {"fi", "ko", "sq"} <= served
    assert len(served) >= 42, sorted(served)
    assert served <= {lang["code"] for lang in CATALOG["languages"]}
