"""Mode-name mapping and route search, on mode lists written out here.

No binary runs: ``ModeGraph`` only reads mode names, so each rule (codes,
variants, Serbo-Croatian, unusable suffixes, hop limit, pivot preference)
can be pinned on a small, known graph.
"""

from __future__ import annotations

import pytest

from engines.errors import UnsupportedLanguage
from engines.translation.apertium.modes import VARIANTS, ModeGraph, parse_mode


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("eng-spa", [("en", "es", False)]),
        ("es-pt", [("es", "pt", False)]),
        ("es-pt_BR", [("es", "pt-BR", True)]),
        ("spa-eng_US", [("es", "en-US", True)]),
        ("nob-swe", [("no", "sv", False)]),
        ("zlm-ind", [("ms", "id", False)]),
        ("eng-hbs_HR", [("en", "hr", True)]),
        ("eng-hbs_SR", [("en", "sr", True)]),
        ("eng-hbs", [("en", "hr", False), ("en", "sr", False)]),
        ("hbs-eng", [("hr", "en", False), ("sr", "en", False)]),
        ("en-gl", [("en", "gl", False)]),
        ("dan-nno", [("da", "nn", False)]),
        ("eng-hbs_BS", []),
        ("eng-cat_valencia", []),
        ("cat-por_PTpre1990", []),
        ("eco-es-fr", []),
        ("Cyrl-Latn", []),
        ("eng-xyz", []),
    ],
)
def test_mode_names_map_to_api_codes(mode: str, expected: list[tuple[str, str, bool]]) -> None:
    assert parse_mode(mode) == expected


MODES = ["eng-spa", "spa-eng", "spa-eng_US", "es-pt", "es-pt_BR", "pt-es", "eng-cat", "cat-por", "es-gl", "gl-en"]


def test_pairs_are_every_route_plus_target_variants() -> None:
    graph = ModeGraph(MODES, max_hops=2)
    reach = {
        "en": {"es", "pt", "ca"},
        "es": {"en", "pt", "ca"},
        "pt": {"es", "en"},
        "ca": {"pt", "es"},
    }
    expected = {(s, t) for s, ts in reach.items() for t in ts}
    expected |= {(s, v) for s, t in expected for v in VARIANTS.get(t, ())}
    assert ("ca", "es-MX") in expected
    assert graph.pairs() == expected


def test_variant_mode_used_on_the_last_hop_only() -> None:
    graph = ModeGraph(MODES)
    assert graph.route("en", "pt-BR").modes == ("eng-spa", "es-pt_BR")
    assert graph.route("en", "pt-PT").modes == ("eng-spa", "es-pt")
    assert graph.route("es", "en-US").modes == ("spa-eng_US",)
    assert graph.route("pt", "en-US").modes == ("pt-es", "spa-eng_US")
    assert graph.route("pt", "en-US").hops == ("pt", "es", "en-US")


def test_spanish_wins_a_tie_between_pivots() -> None:
    graph = ModeGraph(MODES)
    # en->pt can go through es (eng-spa, es-pt) or ca (eng-cat, cat-por).
    assert graph.route("en", "pt").hops == ("en", "es", "pt")


def test_pivot_only_languages_route_but_are_never_offered() -> None:
    graph = ModeGraph(["gl-en", "es-gl"])
    assert graph.route("es", "en").hops == ("es", "gl", "en")
    assert all("gl" not in pair for pair in graph.pairs())


def test_hop_limit_bounds_routes() -> None:
    chain = ["afr-nld", "nld-dan", "dan-swe", "swe-isl"]
    assert ("af", "is") not in ModeGraph(chain, max_hops=3).pairs()
    assert ModeGraph(chain, max_hops=4).route("af", "is").hops == ("af", "nl", "da", "sv", "is")


def test_specific_mode_beats_generic_for_the_same_target() -> None:
    graph = ModeGraph(["eng-hbs", "eng-hbs_HR"])
    assert graph.route("en", "hr").modes == ("eng-hbs_HR",)
    assert graph.route("en", "sr").modes == ("eng-hbs",)


@pytest.mark.parametrize(("source", "target"), [("en", "fr"), ("en", "es-MX-x"), ("en", "en-US"), ("gl", "en"), ("fr", "en")])
def test_unknown_routes_raise(source: str, target: str) -> None:
    with pytest.raises(UnsupportedLanguage):
        ModeGraph(MODES).route(source, target)
