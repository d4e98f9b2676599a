"""The routing table: which engine serves a pair, in what order the rest fall back, which pairs are offered."""

from __future__ import annotations

import pytest

from engines.errors import EngineFailure
from engines.translation.base import TranslationHints, TranslationRequest, TranslationResult, TranslatorEngine
from engines.translation.routing import Router, RoutingTable, preferred_engine
from engines.translation.safe import SafeTranslator


class Tagging(TranslatorEngine):
    """Prefixes every segment with its name; fails when told to."""

    def __init__(self, name: str, pairs: set[tuple[str, str]], fail: bool = False) -> None:
        super().__init__()
        self.name = name  # type: ignore[misc]
        self._pairs = frozenset(pairs)
        self.fail = fail
        self.calls = 0

    def start(self) -> None:
        pass

    def pairs(self) -> frozenset[tuple[str, str]]:
        return self._pairs

    def translate(self, request: TranslationRequest) -> TranslationResult:
        self.calls += 1
        if self.fail:
            raise EngineFailure(f"{self.name} is broken")
        return TranslationResult(tuple(f"{self.name}:{t}" for t in request.texts), engine=self.name)


TABLE = RoutingTable.from_dict(
    {
        "floor": 40,
        "pairs": {
            "en-de": {"chrf": {"llm": 55.0}},
            "en-es": {"chrf": {"llm": 58.0, "apertium": 49.0}},
            "en-ca": {"chrf": {"llm": 38.0, "apertium": 52.0}},
            "en-ja": {"chrf": {"llm": 21.0}},
            "en-pt": {"chrf": {"llm": 57.0, "apertium": 45.0, "fast": 61.0}},
        },
    }
)


def engines() -> tuple[Tagging, Tagging, Tagging]:
    llm = Tagging("llm", {("en", "de"), ("en", "es"), ("en", "ca"), ("en", "ja"), ("en", "pt"), ("en", "pt-BR"), ("en", "ko")})
    apertium = Tagging("apertium", {("en", "es"), ("en", "ca"), ("en", "pt"), ("en", "pt-BR")})
    fast = Tagging("fast", {("en", "pt"), ("en", "pt-BR")})
    return llm, apertium, fast


def test_pairs_are_offered_only_when_their_best_engine_reaches_the_floor() -> None:
    router = Router(engines(), TABLE)
    assert {("en", "de"), ("en", "es"), ("en", "ca"), ("en", "pt"), ("en", "pt-BR")} == router.pairs()
    assert router.route("en", "ja") is None  # measured, below the floor
    assert router.route("en", "ko") is None  # never measured


def test_the_best_engine_goes_first_and_the_others_follow_by_score() -> None:
    router = Router(engines(), TABLE)
    assert [e.name for e in router.chain("en", "pt")] == ["fast", "llm", "apertium"]
    assert [e.name for e in router.chain("en", "ca")] == ["apertium", "llm"]
    assert router.route("en", "es") == ("llm", 58.0)


def test_a_variant_uses_its_primarys_scores_for_engines_that_serve_it() -> None:
    router = Router(engines(), TABLE)
    assert [e.name for e in router.chain("en", "pt-BR")] == ["fast", "llm", "apertium"]


def test_prefer_moves_an_engine_first_only_above_the_floor() -> None:
    router = Router(engines(), TABLE)
    assert router.chain("en", "pt", prefer="llm")[0].name == "llm"
    assert router.chain("en", "ca", prefer="llm")[0].name == "apertium"  # llm scored 38 < 40


def test_a_draft_to_shorten_goes_to_the_llm_first_where_it_scores_above_the_floor() -> None:
    router = Router(engines(), TABLE)
    draft = TranslationHints(max_length=20, draft="Uma frase longa demais para o tempo que tem.")
    assert preferred_engine(TranslationHints()) is None
    assert preferred_engine(TranslationHints(mode="professional")) == "llm"
    assert router.chain("en", "pt", prefer=preferred_engine(draft))[0].name == "llm"  # fast cannot follow a budget
    assert router.chain("en", "ca", prefer=preferred_engine(draft))[0].name == "apertium"


def test_without_a_table_engines_keep_configuration_order_and_every_pair_is_offered() -> None:
    llm, apertium, _fast = engines()
    router = Router([apertium, llm])
    assert [e.name for e in router.chain("en", "es")] == ["apertium", "llm"]
    assert ("en", "ko") in router.pairs() and ("en", "ja") in router.pairs()


def test_a_failing_engine_hands_over_to_the_next_and_is_counted() -> None:
    llm, apertium, fast = engines()
    fast.fail = True
    router = Router([llm, apertium, fast], TABLE)
    safe = SafeTranslator(llm)
    result = safe.translate(TranslationRequest(("Hello there",), "en", "pt"), chain=router.chain("en", "pt"))
    assert result.engine == "llm" and result.fallback is True
    assert result.texts == ("llm:Hello there",)
    assert safe.stats() == {"fast_failed": 1}
    assert apertium.calls == 0


def test_when_every_engine_fails_the_last_error_is_raised() -> None:
    llm, apertium, _ = engines()
    llm.fail = apertium.fail = True
    safe = SafeTranslator(llm)
    with pytest.raises(EngineFailure, match="apertium"):
        safe.translate(TranslationRequest(("Hello",), "en", "es"), chain=[llm, apertium])


def test_a_table_file_round_trips(tmp_path) -> None:
    path = tmp_path / "routing.yaml"
    path.write_text("floor: 45\npairs:\n  en-de: {engine: llm, chrf: {llm: 50.5}}\n", encoding="utf-8")
    table = RoutingTable.load(path)
    assert table.floor == 45 and table.scores_for("en", "de") == {"llm": 50.5}
    assert RoutingTable.load(path, floor=60).floor == 60


def test_withheld_pairs_carry_their_best_measured_quality() -> None:
    from engines.capabilities import Capabilities

    router = Router(engines(), TABLE)
    withheld = router.withheld()
    assert withheld == {("en", "ja"): ("llm", 21.0, 40.0), ("en", "ko"): ("llm", None, 40.0)}
    assert not set(withheld) & router.pairs()
    caps = Capabilities(translation_pairs=router.pairs()).merge(Capabilities(withheld_pairs=withheld))
    assert "chrF 21.0 (llm)" in caps.refusal("en", "ja") and "floor of chrF 40.0" in caps.refusal("en", "ja")
    assert "not been measured" in caps.refusal("en", "ko")
    assert caps.refusal("en", "xx").endswith("is not available on this service.")
    assert Router(engines()).withheld() == {}  # without a table every pair an engine serves is offered
