"""Profanity masking: whole words only, case-insensitive, per language."""

from __future__ import annotations

import unicodedata

import pytest

from pipelines.subtitles.profanity import MASK, ProfanityFilter, censor_cues, load_words, supported_languages
from pipelines.subtitles.types import Cue

REQUIRED = {"en", "es", "fr", "de", "pt", "it", "nl", "ru"}


def test_required_languages_have_lists():
    assert supported_languages() >= REQUIRED


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("en", "What the fuck is this shit?", "What the *** is this ***?"),
        ("en", "FUCKING hell, Shit!", "*** hell, ***!"),
        ("en", "(asshole) bitch's car", "(***) ***'s car"),
        ("es", "¡Joder! Qué mierda.", "¡***! Qué ***."),
        ("fr", "Putain de merde", "*** de ***"),
        ("de", "So eine SCHEISSE, Arschloch!", "So eine ***, ***!"),
        ("de", "Scheiße.", "***."),
        ("pt-BR", "Porra, caralho!", "***, ***!"),
        ("it", "Che cazzo, stronzo.", "Che ***, ***."),
        ("nl", "Godverdomme, klootzak", "***, ***"),
        ("ru", "Сука, блять!", "***, ***!"),
        ("ru", "ПИЗДЕЦ", "***"),
        ("pl", "Kurwa mać", "*** mać"),
    ],
)
def test_offensive_words_are_masked(language, text, expected):
    assert ProfanityFilter(language).censor(text) == expected


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "The class will assume a passage through Scunthorpe."),
        ("en", "A cocktail at Dickens' bass concert."),
        ("en", "Assistant grasshopper embarrassed"),
        ("ru", "Сукно и тарахтит"),  # "сукно" (cloth) contains "сук"
        ("de", "Barschloch und Schwarzfick"),  # listed stems inside longer words
        ("fr", "Les connaissances du conseil"),
    ],
)
def test_words_merely_containing_a_listed_word_are_kept(language, text):
    assert ProfanityFilter(language).censor(text) == text


def test_decomposed_accents_are_matched():
    decomposed = unicodedata.normalize("NFD", "Enculé!")
    assert ProfanityFilter("fr").censor(decomposed) == "***!"


def test_languages_without_a_list_pass_through():
    for language in ("ja", "zh", "th", "xx"):
        profanity = ProfanityFilter(language)
        assert not profanity.active
        assert profanity.censor("fuck 他妈的") == "fuck 他妈的"


def test_extra_words_extend_the_list():
    assert ProfanityFilter("ja", extra_words=["くそったれ"]).censor("くそったれ!") == "***!"
    with pytest.raises(ValueError, match="3\\+ characters"):
        ProfanityFilter("en", extra_words=["a*"])


@pytest.mark.parametrize("language", sorted(supported_languages()))
def test_lists_are_well_formed_and_masking_never_lengthens(language):
    entries = load_words(language)
    assert 5 <= len(entries) <= 60
    profanity = ProfanityFilter(language)
    for entry in entries:
        word = entry.rstrip("*")
        assert len(word) >= len(MASK)
        assert profanity.censor(word.upper()) == MASK
        assert profanity.censor(f"«{word}»") == f"«{MASK}»"


def test_censor_lines_keeps_line_structure():
    assert ProfanityFilter("en").censor_lines(["no problem", "holy shit"]) == ("no problem", "holy ***")


def test_censor_cues_masks_each_block_in_its_own_language():
    cues = [Cue(1, 0.0, 1.0, ("[Speaker 1] Putain!",), ("[Speaker 1] Fuck!",), "Speaker 1", "[Speaker 1]")]
    (only,) = censor_cues(cues, "fr", original_language="en")
    assert only.lines == ("[Speaker 1] ***!",) and only.original_lines == ("[Speaker 1] ***!",)
    (kept,) = censor_cues(cues, "fr")
    assert kept.original_lines == ("[Speaker 1] Fuck!",)
