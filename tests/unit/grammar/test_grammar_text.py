"""Words, sentences and chunks keep code-point offsets into the original text."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from engines.grammar.base import stable_id
from engines.grammar.equivalents import rule_id, shared_ids
from engines.grammar.text import chunks, has_text, sentences, words

TEXT = "😀 Don't visit https://x.example/a now. L'eau est froide e\u0301te\u0301 {0} <b>gras</b>. नमस्ते दुनिया! 東京は大きい。 Fin."


def test_words_skip_markup_and_keep_offsets() -> None:
    found = list(words(TEXT))
    assert all(TEXT[w.start : w.end] == w.text for w in found)
    texts = [w.text for w in found]
    assert "Don't" in texts and "L'eau" in texts and "नमस्ते" in texts and "e\u0301te\u0301" in texts
    assert not any("http" in t or t == "b" or t == "x" for t in texts)


def test_sentences_and_chunks_cover_the_text_in_order() -> None:
    parts = list(sentences(TEXT))
    assert next(p.text for p in parts).startswith("😀 Don't") and parts[-1].text == "Fin."
    assert all(TEXT[p.start : p.end] == p.text for p in parts)
    for size in (10, 40, 10_000):
        pieces = chunks(TEXT, size)
        assert all(TEXT[c.start : c.end] == c.text for c in pieces)
        assert next(s.start for s in parts if any(c.start == s.start for c in pieces)) == parts[0].start
        assert all(a.end <= b.start for a, b in itertools.pairwise(pieces))


@given(
    st.lists(st.sampled_from(["Hello there.", "Ça va?", "東京。", "😀!", "\n\n", " ", "word"]), max_size=30), st.integers(5, 60)
)
def test_chunks_never_lose_a_sentence(pieces: list[str], size: int) -> None:
    text = " ".join(pieces)
    covered = chunks(text, size)
    for sentence in sentences(text):
        assert any(c.start <= sentence.start and sentence.end <= c.end for c in covered)


def test_has_text() -> None:
    assert has_text("a") and has_text("7") and has_text("東") and not has_text(" ?!… 😀 -- \n")


def test_rule_ids_are_stable_ascii() -> None:
    assert stable_id("EN_HARPER", "AnA") == "EN_HARPER_AN_A"
    assert stable_id("FR_GRAMMALECTE", "conf_à_après_verbes") == "FR_GRAMMALECTE_CONF_A_APRES_VERBES"
    assert rule_id("harper", "RepeatedWords", "EN_HARPER") == "REPEATED_WORD"  # one id whichever engine finds it
    assert rule_id("quire", "doubled-word", "EN_QUIRE") == "REPEATED_WORD"
    assert rule_id("languagetool", "MORFOLOGIK_RULE_EN_US", "LT") == "SPELLING"
    assert shared_ids("languagetool", "MORFOLOGIK_RULE_DE_DE") == ("SPELLING",)  # disabling SPELLING disables it too
    assert shared_ids("languagetool", "EN_A_VS_AN") == ()  # already the shared id
    assert shared_ids("languagetool", "SOME_NEW_RULE") == ()
