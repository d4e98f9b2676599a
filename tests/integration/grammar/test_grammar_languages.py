"""Every grammar language against a small corpus (tests/data/grammar/corpus.yaml).

Per language: clean news-like prose must come back without a warning or an error, and each planted
error (misspellings, a doubled word, a punctuation slip, agreement in English and French) must be
found with its type, by an issue covering its span (at most its neighbouring words). Offsets are
checked after emoji, CJK and combining characters.
"""

from __future__ import annotations

import pytest
import yaml

from engines.grammar import precision
from engines.grammar.checker import SPELLING_ENGINES, GrammarChecker, GrammarResult
from tests.integration.grammar.conftest import CORPUS, check
from tests.support.tiers import sweep

pytestmark = pytest.mark.models

DATA: dict = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
OFFSETS: list[dict] = DATA.pop("offsets")
LANGS = sorted(DATA)
#: The languages make test checks (make test-deep: every one): English's engines, LanguageTool and Hunspell, Grammalecte.
REPRESENTATIVE = {"en", "de", "fr", "pt"}
#: Close pairs langid may confuse on short texts; none is excluded while the corpus detects correctly.
NOT_DETECTED: frozenset[str] = frozenset()
#: Detection is only asserted for texts at least this long.
MIN_DETECT_CHARS = 40


def _found(result: GrammarResult, text: str) -> list[tuple[str, str, str]]:
    return [(i.rule_id, i.type, text[i.offset : i.end]) for i in result.issues]


def _has_span(result: GrammarResult, text: str, wrong: str, kind: str) -> bool:
    """An issue of the type that covers the planted span, reaching at most into its neighbouring words
    (LanguageTool marks "koud ," where our rule marks " ,")."""
    start, end = text.index(wrong), text.index(wrong) + len(wrong)
    near = (text.rfind(" ", 0, max(start - 1, 0)) + 1, text.find(" ", end + 1) % (len(text) + 1) or len(text))
    return any(
        i.type == kind and i.offset <= start and i.end >= end and i.offset >= near[0] and i.end <= near[1] for i in result.issues
    )


@pytest.mark.parametrize("lang", sweep(LANGS, keep=REPRESENTATIVE))
def test_planted_errors_are_found_at_their_offset(grammar_checker: GrammarChecker, lang: str) -> None:
    """Where calibration found every speller of the language noisy, its misspellings are ``info``: asked for."""
    noisy = precision.noisy_spellers().get(lang, frozenset())
    spellers = {e.name for e in grammar_checker.engines if e.name in SPELLING_ENGINES and lang in e.languages()}
    quiet_spelling = bool(spellers) and spellers <= noisy
    missed = []
    for item in DATA[lang]["planted"]:
        severity = "info" if quiet_spelling and item["type"] == "spelling" else "warning"
        result = check(grammar_checker, item["text"], lang, min_severity=severity)
        if not _has_span(result, item["text"], item["wrong"], item["type"]):
            missed.append((item["text"], item["wrong"], item["type"], _found(result, item["text"])))
    assert not missed, "\n".join(f"{t!r}: expected {w!r} ({k}), got {f}" for t, w, k, f in missed)


@pytest.mark.parametrize("lang", sweep(LANGS, keep=REPRESENTATIVE))
def test_clean_text_has_no_warning_or_error(grammar_checker: GrammarChecker, lang: str) -> None:
    flagged = {}
    for text in DATA[lang]["clean"]:
        result = check(grammar_checker, text, lang)
        if result.issues:
            flagged[text] = _found(result, text)
    assert not flagged, "\n".join(f"{t!r}: {f}" for t, f in flagged.items())


@pytest.mark.parametrize("lang", sweep(LANGS, keep=REPRESENTATIVE))
def test_corrected_text_has_fewer_issues(grammar_checker: GrammarChecker, lang: str) -> None:
    for item in DATA[lang]["planted"]:
        result = check(grammar_checker, item["text"], lang, auto_correct=True)
        if not any(i.replacements for i in result.issues):
            continue
        assert result.corrected is not None
        again = check(grammar_checker, result.corrected, lang)
        assert len(again.issues) < len(result.issues), (
            f"{item['text']!r} → {result.corrected!r}: {_found(again, result.corrected)}"
        )


@pytest.mark.parametrize("item", OFFSETS, ids=[f"offsets-{n}" for n in range(len(OFFSETS))])
def test_offsets_after_emoji_cjk_and_combining_characters(grammar_checker: GrammarChecker, item: dict) -> None:
    text, wrong = item["text"], item["wrong"]
    result = check(grammar_checker, text, item["lang"])
    assert _has_span(result, text, wrong, item["type"]), _found(result, text)
    assert any(text[i.offset : i.offset + i.length] == wrong for i in result.issues)


@pytest.mark.parametrize("lang", sweep([lang for lang in LANGS if lang not in NOT_DETECTED], keep=REPRESENTATIVE))
def test_detection_finds_the_language(grammar_checker: GrammarChecker, lang: str) -> None:
    for text in DATA[lang]["clean"]:
        if len(text) >= MIN_DETECT_CHARS:
            assert check(grammar_checker, text, None).lang == lang.split("-")[0], text
