"""Merging engines' issues: filters first, one issue per span, deterministic, corrected text, score."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from engines.grammar.merge import corrected, quality_score, select
from engines.grammar.types import Issue

PRIORITIES = {"harper": 30, "hunspell": 10, "grammar-rules": 0}
ALL = frozenset({"spelling", "grammar", "punctuation", "style", "wordiness"})


def issue(
    offset: int,
    length: int,
    *,
    engine: str = "harper",
    severity: str = "error",
    kind: str = "grammar",
    rule: str = "R",
    fix: str | None = "x",
) -> Issue:
    return Issue(offset, length, kind, severity, rule, "m", (fix,) if fix is not None else (), engine)  # type: ignore[arg-type]


def chosen(issues: list[Issue], **overrides: object) -> list[Issue]:
    options = {"check_types": ALL, "disabled": frozenset(), "min_severity": "warning", "priorities": PRIORITIES, **overrides}
    return select(issues, **options)  # type: ignore[arg-type]


def test_overlaps_keep_severity_then_engine_then_length() -> None:
    spelling = issue(4, 7, engine="hunspell", kind="spelling")
    agreement = issue(4, 7, engine="harper")
    assert chosen([spelling, agreement]) == [agreement]  # same severity: the engine with priority
    warning = issue(0, 11, severity="warning")
    assert chosen([warning, spelling]) == [spelling]  # an error beats a wider warning
    wide, narrow = issue(0, 8, rule="A"), issue(2, 3, rule="B")
    assert chosen([narrow, wide]) == [wide]


def test_filters_apply_before_overlaps() -> None:
    hidden = issue(0, 5, severity="info", kind="style")
    visible = issue(2, 2, severity="warning")
    assert chosen([hidden, visible]) == [visible]
    disabled = issue(0, 5, rule="OFF")
    assert chosen([disabled, visible], disabled=frozenset({"OFF"})) == [visible]
    assert chosen([issue(0, 5, kind="spelling"), visible], check_types=frozenset({"grammar"})) == [visible]
    assert chosen([hidden], min_severity="info") == [hidden]


def test_duplicate_suggestions_are_dropped() -> None:
    twice = Issue(0, 3, "grammar", "error", "R", "m", ("a", "a", "b"), "harper")
    assert chosen([twice])[0].replacements == ("a", "b")


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 6), st.sampled_from(["info", "warning", "error"])), max_size=25))
def test_result_is_sorted_and_never_overlaps(spans: list[tuple[int, int, str]]) -> None:
    issues = [issue(o, n, severity=s, rule=f"R{i}") for i, (o, n, s) in enumerate(spans)]
    kept = chosen(issues, min_severity="info")
    assert kept == sorted(kept, key=lambda i: (i.offset, i.length, i.rule_id))
    for a in kept:
        assert all(a is b or not a.overlaps(b) for b in kept)
    assert chosen(list(reversed(issues)), min_severity="info") == kept  # the order engines answer in does not matter


def test_corrected_applies_every_replacement_left_to_right() -> None:
    text = "I has a apple and and it is red"
    fixes = [issue(2, 3, fix="have"), issue(6, 1, fix="an"), issue(14, 7, fix="and"), issue(28, 3, fix=None)]
    assert corrected(text, fixes) == "I have an apple and it is red"
    assert corrected(text, []) == text


def test_quality_score() -> None:
    assert quality_score([], 0) == 100.0
    assert quality_score([issue(0, 1, severity="info")], 100) == round(100 * math.exp(-10 * 0.1 / 100), 1)
    one_error_in_20 = quality_score([issue(0, 1)], 20)
    assert one_error_in_20 == round(100 * math.exp(-0.5), 1)
    assert quality_score([issue(0, 1), issue(2, 1)], 20) < one_error_in_20 < quality_score([issue(0, 1)], 200) < 100
