"""The shared sentence splitter (engines.text.sentences), with the cases each of its callers needs."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.text.sentences import (
    ABBREVIATIONS,
    NextWord,
    ends_with_stop,
    sentence_follows,
    split,
)


def texts(text: str, **options: object) -> list[str]:
    return [text[s.start : s.end] for s in split(text, **options)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two? Three!", ["One.", "Two?", "Three!"]),
        ("It costs 3.5 dollars. Visit example.com today.", ["It costs 3.5 dollars.", "Visit example.com today."]),
        ('He said "Stop." Then he ran.', ['He said "Stop."', "Then he ran."]),  # the closing quote stays
        ("(See below.) Next one.", ["(See below.)", "Next one."]),
        ("Wait… What?! Yes‼ No.", ["Wait…", "What?!", "Yes‼", "No."]),
        ("Hmm... yes, she did.", ["Hmm... yes, she did."]),  # not before a lowercase word
        ("J. K. Rowling wrote it. Then she rested.", ["J. K. Rowling wrote it.", "Then she rested."]),
        ("He moved to the U.S. Then he left.", ["He moved to the U.S. Then he left."]),  # an initial, not an end
        ("«Bonjour.» Elle part. ¿Qué? ¡Hola!", ["«Bonjour.»", "Elle part.", "¿Qué?", "¡Hola!"]),
        ("今日は晴れです。明日は？すごい！", ["今日は晴れです。", "明日は？", "すごい！"]),  # no space needed
        ("「はい。」そう。", ["「はい。」", "そう。"]),
        ("मेरा नाम राम है। आप कैसे हैं?", ["मेरा नाम राम है।", "आप कैसे हैं?"]),
        ("مرحبا بكم. كيف حالك؟ بخير", ["مرحبا بكم.", "كيف حالك؟", "بخير"]),  # caseless scripts split
        ("یہ کتاب ہے۔ وہ قلم ہے۔", ["یہ کتاب ہے۔", "وہ قلم ہے۔"]),
        (
            "First line\nstill the first.\n\nA paragraph without a stop\n \n  third",
            [
                "First line\nstill the first.",
                "A paragraph without a stop",
                "third",
            ],
        ),
        ("", []),
        ("  \n\n ", []),
    ],
)
def test_sentences_end_at_full_stops_of_every_script(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


def test_spans_carry_their_stop_and_whether_they_ask() -> None:
    spans = split("Really?! Fine. 本当？ Done")
    assert [(s.stop, s.question) for s in spans] == [("?!", True), (".", False), ("？", True), ("", False)]


def test_greek_question_mark_only_in_greek() -> None:
    assert texts("Τι κάνεις; Καλά.", lang="el") == ["Τι κάνεις;", "Καλά."]
    assert split("Τι κάνεις; Καλά.", lang="el")[0].question
    assert texts("One; Two.") == ["One; Two."]


@pytest.mark.parametrize(
    ("text", "any_", "not_lowercase", "capital"),
    [
        ("It rained. then it stopped.", 2, 1, 1),  # grammar wants the lowercase start found
        ("Score: <x0/>. <x1/> wins.", 2, 2, 1),  # a translator keeps a sentinel with its sentence
        ("Version 2.5 is out. 3 bugs fixed.", 2, 2, 2),  # a digit starts a sentence
        ("Hi. !!! There.", 3, 3, 2),  # speech drops the unspeakable "!!!" piece
        ("Done. “Quoted” start.", 2, 2, 2),  # opening quotes are skipped
        ("Fin. ¿qué?", 2, 1, 1),
    ],
)
def test_next_word_says_how_sure_a_full_stop_must_be(text: str, any_: int, not_lowercase: int, capital: int) -> None:
    modes: tuple[NextWord, ...] = ("any", "not_lowercase", "capital")
    assert [len(split(text, next_word=mode)) for mode in modes] == [any_, not_lowercase, capital]


def test_abbreviations_are_the_callers_choice() -> None:
    text = "Mr. Smith met Dr. Jones. They talked, e.g. About work. Then No. 5 won."
    assert texts(text, next_word="capital", abbreviations=ABBREVIATIONS) == [
        "Mr. Smith met Dr. Jones.",
        "They talked, e.g. About work.",
        "Then No. 5 won.",
    ]
    assert texts(text, next_word="capital")[:2] == ["Mr.", "Smith met Dr."]
    assert texts('She said "Mr. Smith"', abbreviations=ABBREVIATIONS) == ['She said "Mr. Smith"']
    assert texts("(Dr. Who) is here.", abbreviations=ABBREVIATIONS) == ["(Dr. Who) is here."]


def test_initials_hold_in_every_mode() -> None:
    for mode in ("any", "not_lowercase", "capital"):
        assert len(split("J. R. R. Tolkien and the U.S. army.", next_word=mode)) == 1  # type: ignore[arg-type]
    assert len(split("I got an A. Then I left.")) == 1  # a capital letter alone reads as an initial
    assert len(split("I counted to 5. Then I left.")) == 2


def test_sentence_follows() -> None:
    assert sentence_follows("etc. Then", 4, "capital")
    assert not sentence_follows("etc. then", 4, "capital")
    assert sentence_follows("etc. 5 more", 4, "capital")
    assert sentence_follows("etc.", 4, "capital")  # the text ends
    assert sentence_follows("etc.  ", 4, "capital")
    assert sentence_follows('etc. "Then', 4, "capital")
    assert not sentence_follows("etc. — then", 4, "capital")
    assert sentence_follows("etc. — then", 4, "not_lowercase")
    assert not sentence_follows("etc. (then", 4, "not_lowercase")
    assert sentence_follows("etc. then", 4, "any")


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("Hello.", True),
        ('He said "yes."', True),
        ("(Really?) ", True),
        ("Wait…", True),
        ("Wow‼", True),
        ("東京。", True),
        ("「はい。」", True),
        ("नमस्ते।", True),
        ("كيف حالك؟", True),
        ("Hello,", False),
        ("Hello", False),
        ('"', False),
        ("", False),
    ],
)
def test_ends_with_stop(text: str, ends: bool) -> None:
    assert ends_with_stop(text) is ends


PIECES = st.sampled_from(
    ["Hello", "there", "Dr.", "J.", "3.5", "no.", "ok", ".", "?", "!", "…", "。", "।", '"', "»", "(", ")", "東京", "é", "x"]
)
GAPS = st.sampled_from(["", " ", "  ", "\n", "\n\n", "\t"])


@given(st.lists(st.tuples(PIECES, GAPS), max_size=40), st.sampled_from(["any", "not_lowercase", "capital"]))
def test_spans_are_ordered_trimmed_and_cover_every_visible_character(parts: list[tuple[str, str]], next_word: NextWord) -> None:
    text = "".join(piece + gap for piece, gap in parts)
    spans = split(text, next_word=next_word, abbreviations=ABBREVIATIONS)
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))
    assert all(s.start < s.end and not text[s.start].isspace() and not text[s.end - 1].isspace() for s in spans)
    covered = "".join(text[s.start : s.end] for s in spans)
    assert [ch for ch in covered if not ch.isspace()] == [ch for ch in text if not ch.isspace()]
