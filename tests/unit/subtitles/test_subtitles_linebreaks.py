"""Line-break costs by language: the word lists and the rules of ``pipelines.subtitles.linebreaks``."""

from __future__ import annotations

import unicodedata
from itertools import pairwise

import pytest

from pipelines.subtitles import linebreaks
from pipelines.subtitles.linebreaks import (
    DANGLING,
    GOOD_BREAK,
    NO_BREAK,
    SECTIONS,
    SENTENCE_BREAK,
    break_cost,
    break_words,
    read_sections,
    supported_languages,
)
from pipelines.subtitles.text import split_units

REQUIRED = {"en", "es", "fr", "de", "pt", "it", "ru", "ar", "hi", "id", "tr", "vi", "ko", "nl", "pl", "zh", "ja"}
LANGUAGES = supported_languages()


def test_required_languages_have_lists():
    assert set(LANGUAGES) >= REQUIRED
    assert list(LANGUAGES) == sorted(LANGUAGES)


@pytest.mark.parametrize("language", LANGUAGES)
def test_list_loads_with_documented_non_empty_sections(language):
    sections = read_sections(language)
    assert sections and all(sections.values()), sections.keys()
    header = linebreaks._LISTS.joinpath(f"{language}.txt").read_text(encoding="utf-8").split("\n[", 1)[0]
    assert all(f"[{name}]" in header for name in SECTIONS)
    words = break_words(language)
    assert words.no_break_after or words.no_break_before


@pytest.mark.parametrize("language", LANGUAGES)
def test_entries_are_lower_case_nfc_and_unique_within_a_section(language):
    for section, entries in read_sections(language).items():
        assert all(e == e.lower() and e == unicodedata.normalize("NFC", e) for e in entries), section
        repeated = sorted({e for e in entries if entries.count(e) > 1})
        assert not repeated, f"{language} [{section}] repeats {repeated}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_shorthand_sections_do_not_repeat_the_sections_they_stand_for(language):
    sections = read_sections(language)
    for shorthand in ("phrase_start", "phrase_end"):
        for role in SECTIONS[shorthand]:
            both = set(sections.get(shorthand, ())) & set(sections.get(role, ()))
            assert not both, f"{language}: {sorted(both)} in [{shorthand}] and [{role}]"


@pytest.mark.parametrize(
    ("language", "before", "after"),
    [
        ("en", "the", "house"),  # article | noun
        ("en", "of", "wine"),  # preposition | object
        ("en", "I", "think"),  # subject pronoun | verb
        ("en", "don't", "know"),  # negation | verb
        ("en", "will", "arrive"),  # auxiliary | verb
        ("es", "la", "casa"),
        ("es", "no", "sé"),
        ("fr", "le", "chat"),
        ("fr", "je", "pense"),
        ("de", "der", "Mann"),
        ("de", "ich", "glaube"),
        ("pt", "a", "casa"),
        ("it", "il", "gatto"),
        ("nl", "het", "huis"),
        ("pl", "w", "domu"),
        ("ru", "в", "доме"),
        ("ru", "не", "знаю"),
        ("tr", "bu", "ev"),
        ("tr", "ev", "için"),  # noun | postposition
        ("id", "di", "rumah"),
        ("id", "rumah", "itu"),  # noun | demonstrative after it
        ("vi", "những", "người"),
        ("ar", "في", "البيت"),
        ("hi", "घर", "में"),  # noun | postposition
        ("ko", "할", "수"),  # bound noun
        ("ko", "먹을", "것을"),
        ("zh", "的", "书"),  # no break right after 的
        ("zh", "我", "的"),  # nor before it
        ("zh", "去", "了"),
        ("ja", "猫", "は"),  # no break before a particle
        ("ja", "お", "茶"),
    ],
)
def test_breaking_inside_a_phrase_costs(language, before, after):
    assert break_cost(before, after, language) > 0


@pytest.mark.parametrize(
    ("language", "before", "after"),
    [
        ("en", "tea", "and"),
        ("es", "café", "y"),
        ("fr", "pain", "et"),
        ("de", "Brot", "und"),
        ("ru", "хлеб", "и"),
        ("pl", "chleb", "ale"),
        ("tr", "ekmek", "ama"),
        ("hi", "चाय", "और"),
        ("ko", "먹었다", "그리고"),
        ("zh", "茶", "但"),
        ("en", "waited", "for"),  # before a preposition
        ("en", "left", "because"),
        ("ar", "البيت", "الذي"),  # before a relative pronoun
        ("tr", "için", "geldim"),  # after a postposition
        ("ja", "で", "会"),  # after a particle
        ("ja", "東京で", "会う"),  # a whole word ending in a particle
    ],
)
def test_breaking_before_a_conjunction_or_after_a_phrase_is_good(language, before, after):
    assert break_cost(before, after, language) == GOOD_BREAK


@pytest.mark.parametrize("language", ["en", "fr", "de", "ru", None, "xx"])
def test_two_capitalised_words_look_like_a_name(language):
    assert break_cost("John", "Smith", language) == NO_BREAK
    assert break_cost("Анна", "Каренина", language) == NO_BREAK


def test_initials_and_titles_stay_with_the_name():
    assert break_cost("J.", "Smith", None) == NO_BREAK
    assert break_cost("Dr.", "Smith", "en") == NO_BREAK
    assert break_cost("Sra.", "López", "es") == NO_BREAK
    assert break_cost("smith.", "Then", "en") == SENTENCE_BREAK


@pytest.mark.parametrize(
    ("language", "before", "after"),
    [
        ("en", "green", "house"),
        ("es", "casa", "grande"),
        ("de", "schnell", "gelaufen"),
        ("ru", "большой", "дом"),
        ("ko", "집에", "갔다"),
        ("zh", "书", "很"),
        ("ja", "食", "べ"),
    ],
)
def test_two_ordinary_words_are_neutral(language, before, after):
    assert break_cost(before, after, language) == 0.0


def test_punctuation_wins_over_the_lists():
    assert break_cost("tea,", "the", "en") == GOOD_BREAK
    assert break_cost("No.", "The", "es") == SENTENCE_BREAK  # a negation ending a sentence
    assert break_cost("的，", "书", "zh") == GOOD_BREAK
    assert break_cost("吗？", "我", "zh") == SENTENCE_BREAK
    assert break_cost('"hello"', "she", "en") == 0.0  # a closing quote only


def test_elided_words_bind_to_the_next_one():
    assert break_cost("l'", "homme", None) == NO_BREAK
    assert break_cost("dell’", "anno", "it") == NO_BREAK
    assert break_cost("'hello'", "she", "en") == 0.0  # a quotation, not an elision
    assert break_cost("qu'il", "vient", "fr") == NO_BREAK  # qu' + subject pronoun
    assert break_cost("j'ai", "mangé", "fr") == NO_BREAK  # j' + auxiliary
    assert break_cost("dit", "qu'il", "fr") == GOOD_BREAK
    assert break_cost("ma'am", "is", "en") == 0.0  # an unlisted head is not split


def test_a_conjunction_ending_a_line_is_a_mild_fault():
    assert break_cost("and", "then", "en") == DANGLING
    assert 0 < DANGLING < NO_BREAK


def test_units_inside_a_listed_word_stay_together():
    assert break_cost("但", "是", "zh") == NO_BREAK
    assert break_cost("か", "ら", "ja") == NO_BREAK
    assert break_cost("但是", "我", "zh") == DANGLING


def test_spelling_variants_match():
    assert break_cost("الى", "البيت", "ar") == NO_BREAK  # إلى written without hamza
    assert break_cost("فِي", "البيت", "ar") == NO_BREAK  # with a short vowel
    assert break_cost("мое", "дело", "ru") == NO_BREAK  # моё written with е
    assert break_cost("THE", "house", "en") == NO_BREAK


def test_regional_codes_map_to_the_language():
    assert break_words("pt-BR") is break_words("pt")
    assert break_cost("a", "casa", "pt-BR") == NO_BREAK
    assert break_cost("了", "我", "zh-TW") == 0.0
    assert break_cost("去", "了", "zh-TW") == NO_BREAK
    assert break_cost("der", "Mann", "DE") == NO_BREAK


@pytest.mark.parametrize("language", [None, "", "xx", "sv"])
def test_an_unknown_language_keeps_only_the_shared_rules(language):
    assert break_cost("the", "house", language) == 0.0
    assert break_cost("tea", "and", language) == 0.0
    assert break_cost("tea,", "and", language) == GOOD_BREAK
    assert break_cost("tea.", "And", language) == SENTENCE_BREAK
    assert break_cost("John", "Smith", language) == NO_BREAK


def test_best_break_of_an_english_sentence():
    sentence = "She left the keys on the table and walked to the door"
    costs = {(a, b): break_cost(a, b, "en") for a, b in pairwise(sentence.split())}
    best = min(costs.values())
    assert costs[("table", "and")] == best == GOOD_BREAK
    assert costs[("the", "table")] == costs[("to", "the")] == NO_BREAK


def test_costs_between_chinese_units():
    units = split_units("我们看了他的新房子，但没有进去。")
    costs = {(a, b): break_cost(a, b, "zh") for a, b in pairwise(units)}
    assert costs[("的", "新")] == costs[("看", "了")] == costs[("我", "们")] == NO_BREAK
    assert costs[("子，", "但")] == GOOD_BREAK
    assert min(costs.values()) == GOOD_BREAK


def test_a_malformed_list_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(linebreaks, "_LISTS", tmp_path)
    tmp_path.joinpath("xx.txt").write_text("# header\nthe\n", encoding="utf-8")
    with pytest.raises(ValueError, match="before the first section"):
        read_sections("xx")
    tmp_path.joinpath("xx.txt").write_text("[no_break_afterr]\nthe\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown section"):
        read_sections("xx")
