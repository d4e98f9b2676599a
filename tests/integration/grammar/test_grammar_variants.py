"""Regional variants with the real engines of the CPU profile: each variant gets its own rules, a bare
``pt``/``en`` is read from the text or defaults to pt-BR/en-US, and the added languages are served.

Sentences here are the tests' own (not the scoring set's). Assertions are invariants: no issue on
correct Brazilian text given as ``pt``, a European-only rule firing on European text only.
"""

from __future__ import annotations

import pytest

from engines.grammar.checker import GrammarChecker
from engines.grammar.lingotweaker_engine import LingoTweakerEngine
from engines.grammar.types import CheckOptions
from tests.integration.grammar.conftest import check

pytestmark = pytest.mark.models

#: Correct Brazilian Portuguese with a possessive and no article, which European Portuguese writes with one.
BRAZILIAN = ("Ela deixou sua bolsa no carro.", "Vou visitar minha mãe amanhã.", "Eles venderam sua casa no ano passado.")
EUROPEAN_ONLY = "POSSESSIVE_WITHOUT_ARTICLE"


@pytest.fixture(scope="module")
def languagetool() -> LingoTweakerEngine:
    engine = LingoTweakerEngine(preload=[])
    engine.start()
    yield engine
    engine.shutdown()


def _ids(issues: object) -> set[str]:
    return {i.rule_id for i in issues}  # type: ignore[attr-defined]


def test_each_variant_runs_its_own_languagetool_rules(languagetool: LingoTweakerEngine) -> None:
    for text in BRAZILIAN:
        assert EUROPEAN_ONLY not in _ids(languagetool.check(text, CheckOptions("pt-BR"))), text
        assert EUROPEAN_ONLY in _ids(languagetool.check(text, CheckOptions("pt-PT"))), text
    british = "The colour of the theatre was a favourite topic."
    assert not [i for i in languagetool.check(british, CheckOptions("en-GB")) if i.type == "spelling"]
    assert {"colour", "theatre", "favourite"} <= {
        british[i.offset : i.end] for i in languagetool.check(british, CheckOptions("en-US")) if i.type == "spelling"
    }


@pytest.mark.parametrize("code", ["pt-BR", "pt-PT", "en-US", "en-GB", "zh-CN", "zh-TW", "fr-CA", "es-MX", "nl-BE"])
def test_every_variant_of_the_language_list_is_accepted(grammar_checker: GrammarChecker, code: str) -> None:
    assert grammar_checker.supports(code)
    result = check(grammar_checker, {"zh": "今天天气很好。"}.get(code[:2], "Ok."), code)
    assert result.lang == code and result.variant == code


@pytest.mark.parametrize("text", BRAZILIAN)
def test_correct_brazilian_portuguese_given_as_pt_gets_no_issue(grammar_checker: GrammarChecker, text: str) -> None:
    for lang in ("pt", "pt-BR"):
        result = check(grammar_checker, text, lang)
        assert result.issues == (), (lang, result.issues)
        assert result.variant == "pt-BR" and result.lang == lang
    assert EUROPEAN_ONLY not in _ids(check(grammar_checker, text, "pt", min_severity="info").issues)


def test_correct_brazilian_portuguese_detected_gets_no_issue(grammar_checker: GrammarChecker) -> None:
    text = "Ontem minha irmã deixou sua bolsa no carro e só percebeu quando já estava em casa."  # long enough to detect
    result = check(grammar_checker, text, None)
    assert (result.lang, result.variant, result.issues) == ("pt", "pt-BR", ())


def test_the_european_rule_still_fires_on_european_text(grammar_checker: GrammarChecker) -> None:
    """Given as pt-PT, or given as pt with European spelling (equipa, autocarro) in it."""
    assert EUROPEAN_ONLY in _ids(check(grammar_checker, BRAZILIAN[0], "pt-PT", min_severity="info").issues)
    european = "A equipa deixou sua bolsa no autocarro."
    result = check(grammar_checker, european, "pt", min_severity="info")
    assert result.variant == "pt-PT" and result.lang == "pt"
    assert EUROPEAN_ONLY in _ids(result.issues)


def test_british_spelling_given_as_en_is_checked_as_british(grammar_checker: GrammarChecker) -> None:
    text = "The neighbours painted the centre of the village in their favourite colour."
    result = check(grammar_checker, text, "en")
    assert result.variant == "en-GB" and result.lang == "en"
    assert result.issues == ()
    assert [i for i in check(grammar_checker, text, "en-US").issues if i.type == "spelling"]
    assert check(grammar_checker, "The cat sat on the mat.", "en").variant == "en-US"  # no marker: the default


@pytest.mark.parametrize(
    ("lang", "text", "wrong"),
    [
        ("fi", "Lapset leikkivät puistossa koko päivän ja söivät jäätelöä. Kirjastto on auki.", "Kirjastto"),
        ("sq", "Fëmijët luajnë në park gjithë ditën. Qeveira paraqiti një ligj të ri.", "Qeveira"),
        ("ko", "아이들은 하루 종일 공원에서 놀았다. 정부는 새로운 법안을 발표핬다.", "발표핬다"),
    ],
)
def test_the_added_languages_are_checked(grammar_checker: GrammarChecker, lang: str, text: str, wrong: str) -> None:
    assert grammar_checker.supports(lang)
    result = check(grammar_checker, text, lang)
    assert [text[i.offset : i.end] for i in result.issues] == [wrong]
    assert check(grammar_checker, text, None).lang == lang


def test_at_least_42_grammar_languages_are_served(grammar_checker: GrammarChecker) -> None:
    languages = grammar_checker.catalogue.languages
    served = {s.code.split("-")[0] for s in languages}
    assert len(served) >= 42, sorted(served)
    spelled = {s.code for s in languages if s.spelling}
    assert {"fi", "ko", "sq", "pt-BR", "pt-PT", "en-GB"} <= spelled
