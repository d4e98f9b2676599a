"""The translation-memory benchmark's data (loadtests/data/memory): whole, consistent, and kept apart.

The test sentences must be new to the memory that scores them (neither equal nor nearly equal to a memory source)
and to the development set; every concept is taught by at least two memory rows that use its term and tested by at
least two sentences; every target has the same concepts. Also the term matching the benchmark counts with.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import get_args

import pytest

from loadtests.bench_memory_terms import (
    DATA,
    DEVSET,
    Concept,
    chrf,
    data_languages,
    devset_sample,
    load_devset,
    normalise,
    paired_bootstrap,
    read_concepts,
    read_pairs,
    read_tests,
    uses_term,
)
from serve_app.schemas.game import ContentType

LANGUAGES = data_languages()
NEAR = 0.8
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def mentions(english: str, concept: str) -> bool:
    """The English text names the concept (a whole word, plural allowed)."""
    return re.search(rf"\b{re.escape(concept)}(s|es)?\b", english, re.IGNORECASE) is not None


def devset_lines() -> set[str]:
    lines = {normalise(row.split("\t")[2]) for row in (DEVSET / "en.tsv").read_text(encoding="utf-8").splitlines() if row}
    for path in DEVSET.glob("*.txt"):
        lines |= {normalise(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
    return lines


def all_memory_rows() -> dict[str, list[tuple[str, str]]]:
    return {path.name: read_pairs(path) for path in sorted(DATA.glob("*_memory.*.tsv"))}


def test_three_targets_or_more_with_every_file() -> None:
    assert {"es", "fr", "de"} <= set(LANGUAGES)
    assert len(all_memory_rows()) == 2 * len(LANGUAGES)


def test_every_memory_row_has_two_cells_and_keeps_its_placeholders() -> None:
    for name, rows in all_memory_rows().items():
        assert len(rows) >= (60 if name.startswith("game") else 150), name
        assert all(source.strip() and target.strip() for source, target in rows), name
        assert len({source for source, _ in rows}) == len(rows), f"{name}: a source twice"
        for source, target in rows:
            assert sorted(PLACEHOLDER.findall(source)) == sorted(PLACEHOLDER.findall(target)), (name, source)
            assert unicodedata.normalize("NFC", target) == target, (name, target)


def test_every_target_has_the_same_concepts() -> None:
    names = [list(read_concepts(lang)) for lang in LANGUAGES]
    assert all(n == names[0] for n in names)
    assert len(names[0]) >= 25
    game_sources = [[source for source, _ in read_pairs(DATA / f"game_memory.{lang}.tsv")] for lang in LANGUAGES]
    assert all(s == game_sources[0] for s in game_sources), "every target translates the same English rows"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_concept_is_taught_by_two_rows_using_its_term(lang: str) -> None:
    rows = read_pairs(DATA / f"game_memory.{lang}.tsv")
    for concept in read_concepts(lang).values():
        teaching = [(s, t) for s, t in rows if mentions(s, concept.name)]
        assert len(teaching) >= 2, concept.name
        assert all(uses_term(t, concept) for _, t in teaching), [t for _, t in teaching if not uses_term(t, concept)]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_unrelated_memory_teaches_no_concept(lang: str) -> None:
    concepts = read_concepts(lang).values()
    for source, target in read_pairs(DATA / f"unrelated_memory.{lang}.tsv"):
        assert not [c.name for c in concepts if mentions(source, c.name) or uses_term(target, c)], (source, target)


def test_every_concept_is_tested_twice_by_new_sentences() -> None:
    tests = read_tests()
    concepts = read_concepts(LANGUAGES[0])
    assert len(tests) >= 60
    assert len({t.text for t in tests}) == len(tests)
    assert {t.concept for t in tests} == set(concepts)
    for name in concepts:
        assert sum(t.concept == name for t in tests) >= 2, name
    for test in tests:
        assert test.content_type in get_args(ContentType)
        assert [c for c in concepts if mentions(test.text, c)] == [test.concept], test.text


def near(text: str, others: set[str]) -> list[str]:
    """``others`` whose difflib ratio with ``text`` is at least ``NEAR`` (all lowercased)."""
    close = []
    for other in others:
        matcher = difflib.SequenceMatcher(None, text.lower(), other)
        if matcher.real_quick_ratio() >= NEAR and matcher.quick_ratio() >= NEAR and matcher.ratio() >= NEAR:
            close.append(other)
    return close


def test_no_test_sentence_is_near_a_memory_source() -> None:
    sources = {source.lower() for rows in all_memory_rows().values() for source, _ in rows}
    assert [(t.text, near(t.text, sources)) for t in read_tests() if near(t.text, sources)] == []


def test_nothing_of_the_benchmark_is_in_the_devset() -> None:
    devset = devset_lines()
    assert len(devset) > 44
    assert [t.text for t in read_tests() if normalise(t.text) in devset] == []
    for name, rows in all_memory_rows().items():
        assert [pair for pair in rows if normalise(pair[0]) in devset or normalise(pair[1]) in devset] == [], name
    english = {row.split("\t")[2].lower() for row in (DEVSET / "en.tsv").read_text(encoding="utf-8").splitlines() if row}
    sources = [t.text for t in read_tests()] + [s for rows in all_memory_rows().values() for s, _ in rows]
    assert [(text, near(text, english)) for text in sources if near(text, english)] == []


def test_term_matching() -> None:
    potion = Concept("health potion", "poción de vida", ("poción de vida", "pociones de vida"))
    assert uses_term("Bebe una POCIÓN DE VIDA antes de luchar.", potion)
    assert uses_term(unicodedata.normalize("NFD", "Dos pociones de vida."), potion)
    assert uses_term("Bebe una poción\u00a0de  vida.", potion)
    assert not uses_term("Bebe una poción de salud.", potion)
    achievement = Concept("achievement", "Erfolg", ("Erfolg", "Erfolge"))
    assert uses_term("Erfolg freigeschaltet: {0}", achievement)
    assert not uses_term("Du hast erfolgreich gespeichert.", achievement)
    stamina = Concept("stamina bar", "jauge d'endurance", ("jauge d'endurance",))
    assert uses_term("Ta jauge d\u2019endurance est vide.", stamina)
    assert normalise("Ä\u202fB") == "ä b"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_concept_forms_start_with_the_term(lang: str) -> None:
    for concept in read_concepts(lang).values():
        assert concept.forms[0] == concept.term
        assert all(form.strip() == form and form for form in concept.forms), concept


def test_devset_sample_and_chrf() -> None:
    pairs = load_devset("es")
    assert len(pairs) == 44 and pairs[1] == ("Your inventory is full.", "Tu inventario está lleno.")
    assert len(load_devset("pt-BR")) == 44
    sample = devset_sample("de", 40)
    assert len(sample) == 40 and sample == devset_sample("de", 40)
    refs = [ref for _, ref in sample]
    assert chrf(refs, refs) == pytest.approx(100.0)
    assert paired_bootstrap(refs, refs, refs, rounds=20) == (0.0, 0.0)
