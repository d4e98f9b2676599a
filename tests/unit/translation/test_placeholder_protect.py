"""Recognising, protecting and restoring placeholders and markup."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.translation.markup import BREAK, CLOSE, EMOJI, OPEN, PLACEHOLDER, TAG, find_spans
from engines.translation.protect import protect, restore, verify
from tests.unit.translation.translation_support import FAST, assert_preserved, markup_texts


@pytest.mark.parametrize(
    ("token", "kind"),
    [
        ("{0}", PLACEHOLDER),
        ("{name}", PLACEHOLDER),
        ("{0:N2}", PLACEHOLDER),
        ("{{var}}", PLACEHOLDER),
        ("%s", PLACEHOLDER),
        ("%d", PLACEHOLDER),
        ("%1$s", PLACEHOLDER),
        ("%.2f", PLACEHOLDER),
        ("%-5d", PLACEHOLDER),
        ("%%", PLACEHOLDER),
        ("%(count)d", PLACEHOLDER),
        ("${gold}", PLACEHOLDER),
        ("<br/>", TAG),
        ("<sprite=3>", TAG),
        ("</b>", TAG),  # no opening partner
        ("\n", BREAK),
        ("\r\n", BREAK),
        ("\\n", BREAK),
        ("😀", EMOJI),
        ("👍🏽", EMOJI),
        ("🇫🇷", EMOJI),
        ("👨\u200d👩\u200d👧", EMOJI),
        ("❤\ufe0f", EMOJI),
        ("1\ufe0f\u20e3", EMOJI),
    ],
)
def test_each_token_is_one_span(token: str, kind: str) -> None:
    spans = find_spans(f"go {token} now")
    assert [(s.text, s.kind) for s in spans] == [(token, kind)]


@pytest.mark.parametrize(
    ("opening", "closing"),
    [("<b>", "</b>"), ("<color=#f00>", "</color>"), ('<font face="x">', "</font>"), ("[b]", "[/b]"), ("[color=red]", "[/color]")],
)
def test_tag_pairs_are_recognised_as_pairs(opening: str, closing: str) -> None:
    spans = find_spans(f"a {opening}bold{closing} b")
    assert [(s.text, s.kind) for s in spans] == [(opening, OPEN), (closing, CLOSE)]


def test_mismatched_bracket_styles_do_not_pair() -> None:
    kinds = [s.kind for s in find_spans("[b]x</b>")]
    assert kinds == [TAG, TAG]


@pytest.mark.parametrize(
    "text", ["50% off", "100 % sure", "a < b and c > d", "[Note] read", "{ spaced }", "e-mail@home", "3 * 4"]
)
def test_ordinary_text_is_not_markup(text: str) -> None:
    assert find_spans(text) == []


def test_protect_leaves_only_sentinels_and_words() -> None:
    text = "Hi {name}, <b>%d</b> coins\n👍"
    protected = protect(text)
    assert protected.text == "Hi <x0/>, <x1/><x2/><x3/> coins<x4/><x5/>"
    assert [s.text for s in protected.spans] == ["{name}", "<b>", "%d", "</b>", "\n", "👍"]


@FAST
@given(markup_texts())
def test_untouched_output_restores_the_source_exactly(text: str) -> None:
    protected = protect(text)
    restored = restore(protected.text, protected)
    assert restored.text == text
    assert restored.report.clean
    assert verify(restored.text, protected)


def test_lost_sentinel_is_reinserted_between_its_neighbours() -> None:
    protected = protect("Take {0} apples and {1} pears from {2}.")
    restored = restore("Toma <x0/> manzanas y peras de <x2/>.", protected)
    assert restored.report.missing == [1]
    assert restored.text.count("{1}") == 1
    assert restored.text.index("{0}") < restored.text.index("{1}") < restored.text.index("{2}")
    assert "  " not in restored.text


def test_damaged_and_duplicated_sentinels_are_read_back() -> None:
    protected = protect("A {0} B {1} C {2} D {3}")
    restored = restore("a < x0 /> b <X1> c &lt;x2/&gt; d <x3/> <x3/> <x9/>", protected)
    assert restored.text.rstrip() == "a {0} b {1} c {2} d {3}"
    assert restored.report.mangled == 3
    assert restored.report.extra == 2
    assert restored.report.missing == []


def test_placeholder_written_back_by_the_engine_counts_as_its_sentinel() -> None:
    protected = protect("Hello {name}, you won %d")
    restored = restore("Hola {name}, ganaste <x1/>", protected)
    assert restored.text == "Hola {name}, ganaste %d"
    assert restored.report.missing == []


def test_invented_markup_is_removed() -> None:
    protected = protect("Hello {name}")
    restored = restore("<b>Hola</b> <x0/> {other}", protected)
    assert restored.text.split() == ["Hola", "{name}"]
    assert restored.report.extra == 3


def test_positional_printf_fields_go_back_to_source_order() -> None:
    protected = protect("%s has %d coins and {0} or {1}")
    restored = restore("<x1/> monedas tiene <x0/> y <x3/> o <x2/>", protected)
    assert restored.text == "%s monedas tiene %d y {1} o {0}"  # {0}/{1} may move, %s/%d may not


def test_crossed_tags_are_put_back_in_nesting_order() -> None:
    protected = protect("<b>very <i>big</i></b> house")
    restored = restore("casa <x3/>muy <x1/>grande<x0/><x2/>", protected)
    assert restored.text == "casa <b>muy <i>grande</i></b>"


def test_line_breaks_take_back_their_source_spacing() -> None:
    protected = protect("First line\nSecond line")
    restored = restore("Primera línea <x0/> Segunda línea", protected)
    assert restored.text == "Primera línea\nSegunda línea"


def test_invented_line_breaks_do_not_add_lines() -> None:
    protected = protect("one\ntwo")
    assert restore("uno\n<x0/>dos\n", protected).text.count("\n") == 1


@pytest.mark.parametrize("seed", range(30))
def test_any_damage_still_restores_every_span(seed: int) -> None:
    rng = random.Random(seed)
    text = "Hi {name}! <color=#f00>%s</color> got %d\\n[b]x[/b] 👍🏽 %1$s\n{{v}} %.2f <br/>"
    protected = protect(text)
    out = protected.text
    for i in rng.sample(range(len(protected.spans)), k=rng.randint(1, len(protected.spans))):
        out = out.replace(f"<x{i}/>", rng.choice(["", f"<x{i}/><x{i}/>", f"< x{i}/>", " "]))
    restored = restore(out, protected)
    assert_preserved(text, restored.text)
    assert verify(restored.text, protected)


@FAST
@given(markup_texts(), st.randoms(use_true_random=False))
def test_random_deletion_and_shuffling_is_repaired(text: str, rng: random.Random) -> None:
    protected = protect(text)
    parts = protected.text.split(" ")
    rng.shuffle(parts)
    out = " ".join(p for p in parts if rng.random() > 0.2)
    assert_preserved(text, restore(out, protected).text)
