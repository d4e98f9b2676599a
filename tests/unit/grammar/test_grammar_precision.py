"""The precision filter, byte → code-point offsets and LanguageTool's vocabulary, without engines."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engines.grammar import precision
from engines.grammar.languagetool_types import classify, plain_message
from engines.grammar.lingotweaker_engine import char_offsets
from engines.grammar.merge import select
from engines.grammar.types import Issue


def spelling(offset: int, length: int, engine: str, fixes: tuple[str, ...] = ()) -> Issue:
    return Issue(offset, length, "spelling", "error", "SPELLING", "Unknown word.", fixes, engine)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60), st.data())
def test_utf8_byte_offsets_become_code_point_offsets(text: str, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(text)))
    assert char_offsets(text)(len(text[:index].encode("utf-8"))) == index


def test_offsets_on_accents_cyrillic_cjk_and_emoji() -> None:
    text = "Café 東京 😀 привет tomorow"
    start = len(text[: text.index("tomorow")].encode("utf-8"))
    to_chars = char_offsets(text)
    assert text[to_chars(start) : to_chars(start + len(b"tomorow"))] == "tomorow"


def test_a_rule_that_fired_on_correct_text_is_demoted_in_its_language_only(monkeypatch) -> None:
    monkeypatch.setattr(precision, "demoted_rules", lambda: {"sk": frozenset({"AKO"})})
    issue = Issue(0, 3, "grammar", "warning", "AKO", "Comma before 'ako'.", (), "languagetool")
    assert precision.apply([issue], "ako", "sk")[0].severity == "info"
    assert precision.apply([issue], "ako", "cs")[0].severity == "warning"


def test_spelling_only_one_of_two_spellers_rejects_is_demoted() -> None:
    text = "We met Lena at the elcykel shop tomorow."
    alone = spelling(text.index("elcykel"), 7, "hunspell")
    both = [spelling(text.index("tomorow"), 7, "hunspell"), spelling(text.index("tomorow"), 7, "languagetool")]
    out = precision.apply([alone, *both], text, "da", frozenset({"hunspell", "languagetool"}))
    assert [i.severity for i in out] == ["info", "error", "error"]
    single_speller = precision.apply([alone], text, "da", frozenset({"hunspell"}))
    assert single_speller[0].severity == "error"


def test_a_speller_noisy_in_a_language_is_demoted_there_only(monkeypatch) -> None:
    monkeypatch.setattr(precision, "noisy_spellers", lambda: {"sw": frozenset({"hunspell"})})
    text = "Tunapika wali."
    word = spelling(0, 8, "hunspell")
    assert precision.apply([word], text, "sw")[0].severity == "info"
    assert precision.apply([word], text, "tr")[0].severity == "error"
    assert precision.apply([spelling(0, 8, "languagetool")], text, "sw")[0].severity == "error"
    assert precision.apply([word], text, "sw", calibrated=False)[0].severity == "error"  # what calibration sees


def test_the_written_tables_hold_what_calibration_decided() -> None:
    """The committed calibration: ids are strings and no spelling rule is demoted by id."""
    for table in (precision.demoted_rules(), precision.noisy_spellers()):
        assert all(isinstance(lang, str) and names for lang, names in table.items())
    assert not any(
        "SPELL" in rule or rule.startswith("MORFOLOGIK") for rules in precision.demoted_rules().values() for rule in rules
    )


def test_a_capitalised_word_inside_a_sentence_is_a_name_except_in_german() -> None:
    text = "Yesterday we visited Slovnaft and Regirung."
    name = spelling(text.index("Slovnaft"), 8, "hunspell")
    assert precision.apply([name], text, "en")[0].severity == "info"
    assert precision.apply([name], text, "de")[0].severity == "error"  # German capitalises every noun
    first = spelling(0, 9, "hunspell")
    assert precision.apply([first], text, "en")[0].severity == "error"  # a sentence start says nothing


def test_merged_issue_takes_the_suggestion_most_engines_agree_on() -> None:
    kept = spelling(0, 7, "harper", ("tomorrows", "tomorrow"))
    other = spelling(0, 7, "languagetool", ("tomorrow",))
    [merged] = select(
        [kept, other], check_types=frozenset({"spelling"}), disabled=frozenset(), min_severity="warning",
        priorities={"harper": 30, "languagetool": 25},
    )  # fmt: skip
    assert merged.engine == "harper" and merged.replacements[0] == "tomorrow"


def test_disabling_a_shared_id_disables_the_engine_rule_that_is_an_instance_of_it() -> None:
    issue = Issue(0, 7, "spelling", "error", "MORFOLOGIK_RULE_EN_US", "Typo.", (), "languagetool", ("SPELLING",))
    common = {"check_types": frozenset({"spelling"}), "min_severity": "warning", "priorities": {}}
    assert select([issue], disabled=frozenset({"SPELLING"}), **common) == []
    assert select([issue], disabled=frozenset({"MORFOLOGIK_RULE_EN_US"}), **common) == []
    assert len(select([issue], disabled=frozenset({"EN_A_VS_AN"}), **common)) == 1


def test_languagetool_categories_decide_the_type() -> None:
    assert classify("misspelling", "TYPOS") == ("spelling", "error")
    assert classify("misspelling", "CONFUSED_WORDS")[0] == "grammar"  # their/there is not a typo
    assert classify("misspelling", "MISC")[0] == "grammar"  # EN_A_VS_AN
    assert classify("style", "REDUNDANCY") == ("wordiness", "info")
    assert classify("Other", "REDUNDANCY_PT_PT")[0] == "wordiness"
    assert classify("whitespace", "TYPOGRAPHY") == ("punctuation", "warning")
    assert plain_message("Use <suggestion>a</suggestion> here.") == "Use \u201ca\u201d here."
