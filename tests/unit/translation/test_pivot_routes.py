"""Pivot routes: two engines chained through a third language, scored and offered like any engine."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.capability_args import TranslatorArgs
from engines.translation.base import TranslationHints, TranslationRequest, TranslationResult, TranslatorEngine
from engines.translation.markup import find_spans
from engines.translation.pivot import PivotTranslator
from engines.translation.routing import Router, RoutingTable
from engines.translation.safe import SafeTranslator
from tests.unit.translation.translation_support import WordEngine


class Recording(TranslatorEngine):
    """Appends ``[name:target]`` to each segment and remembers every request."""

    def __init__(self, name: str, pairs: set[tuple[str, str]]) -> None:
        super().__init__()
        self.name = name  # type: ignore[misc]
        self._pairs = frozenset(pairs)
        self.requests: list[TranslationRequest] = []

    def start(self) -> None:
        pass

    def pairs(self) -> frozenset[tuple[str, str]]:
        return self._pairs

    def translate(self, request: TranslationRequest) -> TranslationResult:
        self.requests.append(request)
        texts = tuple(f"{t}[{self.name}:{request.target_lang}]" for t in request.texts)
        return TranslationResult(texts, engine=self.name)


def legs() -> tuple[Recording, Recording]:
    llm = Recording("llm", {("en", "sv"), ("de", "sv"), ("sv", "en"), ("en", "de")})
    apertium = Recording("apertium", {("sv", "no"), ("sv", "da"), ("no", "sv"), ("sv", "is")})
    return llm, apertium


def test_a_pivot_serves_what_its_legs_join_restricted_to_its_targets() -> None:
    llm, apertium = legs()
    pivot = PivotTranslator(llm, apertium, "sv", targets=["no", "da"])
    assert pivot.name == "llm>sv>apertium"
    assert pivot.pairs() == {("en", "no"), ("en", "da"), ("de", "no"), ("de", "da")}
    assert PivotTranslator(apertium, llm, "sv", targets=["en"]).pairs() == {("no", "en")}


def test_a_pivots_pairs_are_worked_out_again_only_when_a_leg_changes() -> None:
    llm, apertium = legs()
    pivot = PivotTranslator(llm, apertium, "sv", targets=["no", "da", "is"])
    first = pivot.pairs()
    assert pivot.pairs() is first  # the router asks on every request: the same answer, not a new composition
    apertium._pairs = apertium._pairs - {("sv", "is")}  # a leg's pairs changed (an engine restarted with less)
    assert ("en", "is") in first and ("en", "is") not in pivot.pairs()


def test_both_legs_run_in_order_and_target_hints_steer_only_the_second() -> None:
    llm, apertium = legs()
    hints = TranslationHints(content_type="ui", max_length=12, formality="formal")
    request = TranslationRequest(("Hello",), "en", "no", context=("Before",), hints=hints)
    result = PivotTranslator(llm, apertium, "sv", targets=["no"]).translate(request)
    assert result.texts == ("Hello[llm:sv][apertium:no]",)
    assert result.route == ("en", "sv", "no") and result.engine == "llm>sv>apertium"
    first, second = llm.requests[0], apertium.requests[0]
    assert first.target_lang == "sv" and first.context == ("Before",)
    assert first.hints.content_type == "ui" and first.hints.max_length is None and first.hints.formality is None
    assert second.source_lang == "sv" and second.hints.max_length == 12 and second.context == ()


def test_placeholders_survive_both_legs() -> None:
    first, second = WordEngine(), WordEngine()  # each leg reverses words and keeps sentinels
    pivot = PivotTranslator(first, second, "es", targets=["pt"])
    source = "Hello {{name}}, <b>press</b> %1$s to $t(menu.play)\\nnow"
    (out,) = SafeTranslator(pivot).translate(TranslationRequest((source,), "en", "pt")).texts
    assert "Hello" in out and "press" in out  # reversed twice: both legs ran
    assert len(first.calls) == len(second.calls) == 1
    assert sorted(s.text for s in find_spans(out)) == sorted(s.text for s in find_spans(source))


def test_pivots_are_offered_only_where_the_table_scores_them() -> None:
    llm, apertium = legs()
    pivot = PivotTranslator(llm, apertium, "sv", targets=["no", "da"])
    table = RoutingTable.from_dict({"floor": 40, "pairs": {"en-no": {"chrf": {"llm>sv>apertium": 51.0}}}})
    router = Router([llm, apertium, pivot], table)
    assert ("en", "no") in router.pairs() and ("en", "da") not in router.pairs()
    assert router.route("en", "no") == ("llm>sv>apertium", 51.0)
    assert router.withheld()[("en", "da")] == ("llm>sv>apertium", None, 40.0)


def test_a_pivot_leg_must_be_one_of_the_translators_engines() -> None:
    args = {
        "engines": [{"engine": "apertium"}],
        "pivots": [{"via": "sv", "first": "llm", "second": "apertium", "targets": ["no"]}],
    }
    with pytest.raises(ValidationError, match="llm is not one of the translator's engines"):
        TranslatorArgs.model_validate(args)
