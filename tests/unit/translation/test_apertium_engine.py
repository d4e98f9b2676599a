"""ApertiumEngine against the real apertium binary and installed modes.

Expected translations are never written down here: they come from running
``apertium -u MODE`` by hand on the same line (chained for pivots), so the
tests pin that the engine's batching, escaping and routing change nothing.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from engines.errors import UnsupportedLanguage
from engines.translation.apertium.engine import ApertiumEngine
from engines.translation.apertium.modes import API_LANGUAGES, VARIANTS
from engines.translation.base import TranslationRequest

pytestmark = pytest.mark.apertium

SENTENCES = {
    "en": ("Where is the nearest train station?", "Press the button to start the game."),
    "es": ("El coche rojo es muy rápido.", "Los niños juegan en el jardín con sus amigos."),
    "ca": ("El cotxe vermell és molt ràpid.", "On és l'estació de tren més propera?"),
    "sv": ("Den röda bilen är snabb.", "Var ligger närmaste tågstation?"),
}


def by_hand(line: str, *modes: str) -> str:
    """What running apertium in a shell gives, mode after mode."""
    for mode in modes:
        done = subprocess.run(["apertium", "-u", mode], input=line, capture_output=True, text=True, check=True)
        line = done.stdout.strip()
    return line


def translate(engine: ApertiumEngine, texts: tuple[str, ...], source: str, target: str) -> tuple[str, ...]:
    return engine.translate(TranslationRequest(texts, source, target)).texts


def needs_modes(engine: ApertiumEngine, *modes: str) -> None:
    missing = set(modes) - engine.modes()
    if missing:
        pytest.skip(f"modes not installed: {sorted(missing)}")


@pytest.mark.parametrize(
    ("source", "target", "modes", "route"),
    [
        ("en", "es", ("eng-spa",), ("en", "es")),
        ("en", "pt-BR", ("eng-spa", "es-pt_BR"), ("en", "es", "pt-BR")),
        ("es", "en-US", ("spa-eng_US",), ("es", "en-US")),
        ("ca", "pt-BR", ("cat-por_BR",), ("ca", "pt-BR")),
        ("sv", "en", ("swe-isl", "isl-eng"), ("sv", "is", "en")),
    ],
)
def test_output_and_route_match_apertium_run_by_hand(
    apertium: ApertiumEngine, source: str, target: str, modes: tuple[str, ...], route: tuple[str, ...]
) -> None:
    needs_modes(apertium, *modes)
    texts = SENTENCES[source]
    result = apertium.translate(TranslationRequest(texts, source, target))
    assert result.route == route
    assert result.engine == "apertium"
    assert result.texts == tuple(by_hand(t, *modes) for t in texts)


def test_pivots_go_through_spanish(apertium: ApertiumEngine) -> None:
    needs_modes(apertium, "eng-spa", "es-pt", "es-fr", "spa-ita")
    for target in ("pt", "fr", "it"):
        assert apertium.route("en", target).hops == ("en", "es", target)


def test_variant_without_its_own_mode_uses_the_primary(apertium: ApertiumEngine) -> None:
    texts = SENTENCES["es"]
    assert translate(apertium, texts, "es", "en-GB") == translate(apertium, texts, "es", "en")
    assert apertium.route("es", "en-GB").modes == apertium.route("es", "en").modes


def test_variant_source_maps_to_its_primary(apertium: ApertiumEngine) -> None:
    texts = SENTENCES["en"]
    result = apertium.translate(TranslationRequest(texts, "en-GB", "es"))
    assert result.route == ("en", "es")
    assert result.texts == translate(apertium, texts, "en", "es")


def test_pairs_are_exactly_the_routable_ones(apertium: ApertiumEngine) -> None:
    pairs = apertium.pairs()
    targets = sorted(API_LANGUAGES) + [v for vs in VARIANTS.values() for v in vs]
    for source in sorted(API_LANGUAGES):
        for target in targets:
            try:
                apertium.route(source, target)
                routable = True
            except UnsupportedLanguage:
                routable = False
            assert ((source, target) in pairs) == routable, (source, target)
    assert {("en", "es"), ("en", "pt"), ("en", "pt-BR"), ("en", "pt-PT")} <= pairs
    assert all(s in API_LANGUAGES for s, _ in pairs)


@pytest.mark.parametrize(("source", "target"), [("en", "ja"), ("ja", "en"), ("en", "en"), ("en", "en-US"), ("xx", "es")])
def test_unsupported_pair_raises(apertium: ApertiumEngine, source: str, target: str) -> None:
    with pytest.raises(UnsupportedLanguage) as caught:
        apertium.translate(TranslationRequest(("Hello",), source, target))
    assert caught.value.target == target


def _count_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Record every apertium translation process the engine starts."""
    runs: list[list[str]] = []
    real = subprocess.Popen

    def spy(cmd: list[str], *args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        if "-z" in cmd:
            runs.append(cmd)
        return real(cmd, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "Popen", spy)
    return runs


def test_a_batch_runs_one_process_per_hop_and_keeps_order(apertium: ApertiumEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    words = ["dog", "cat", "house", "garden", "king", "castle", "sword", "village"]
    words += ["farmer", "train", "station", "game", "button", "light"]
    texts = tuple(f"The {a} sees the {b} near the {c}." for a in words[:8] for b in words[8:12] for c in words[12:14])
    runs = _count_runs(monkeypatch)
    batch = translate(apertium, texts, "en", "pt")
    assert len(runs) == 2  # en->es and es->pt, whatever the number of segments
    assert len(batch) == len(texts) == 64
    for i in (0, 17, 63):
        assert batch[i] == translate(apertium, (texts[i],), "en", "pt")[0]


def test_lines_inside_a_segment_stay_lines(apertium: ApertiumEngine) -> None:
    lines = ["The red car is fast.", "Where is the station", "", "  Press the button  "]
    result = translate(apertium, ("\n".join(lines), "one\r\ntwo"), "en", "es")
    assert result[0].split("\n")[2] == ""
    assert result[0].split("\n") == list(translate(apertium, tuple(lines), "en", "es"))
    assert result[1].count("\r\n") == 1


def test_edge_whitespace_is_kept(apertium: ApertiumEngine) -> None:
    (out,) = translate(apertium, ("   The red car\t",), "en", "es")
    assert out.startswith("   ") and not out.startswith("    ")
    assert out.endswith("\t") and out[-2] != " "


def test_unknown_words_carry_no_markers(apertium: ApertiumEngine) -> None:
    texts = ("Xyzzy frobnicated the glorpish wumpus.", "The blorfing snarkles wibbled quux.")
    for source, target in (("en", "es"), ("en", "pt"), ("en", "ca")):
        for out in translate(apertium, texts, source, target):
            assert not re.search(r"[*#@~]", out), out
            assert "Xyzzy" in out or "blorfing" in out


def test_the_users_own_marker_and_stream_characters_survive(apertium: ApertiumEngine) -> None:
    text = r"Email me @ home #1 *now* ~ok \ [beta] ^up$ a/b <tag> {x} | done"
    (out,) = translate(apertium, (text,), "en", "es")
    for ch in "@#*~\\[]^$/<>{}|":
        assert out.count(ch) == text.count(ch), (ch, out)


def test_serbian_cyrillic_is_read_as_latin(apertium: ApertiumEngine) -> None:
    needs_modes(apertium, "Cyrl-Latn", "hbs-eng")
    cyrillic = translate(apertium, ("Кућа је велика и лепа.",), "sr", "en")
    latin = translate(apertium, ("Kuća je velika i lepa.",), "sr", "en")
    assert cyrillic == latin
    assert not re.search(r"[\u0400-\u04ff]", cyrillic[0])


def test_empty_segments_skip_apertium(apertium: ApertiumEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _count_runs(monkeypatch)
    assert translate(apertium, ("", "  ", "\n"), "en", "es") == ("", "  ", "\n")
    assert runs == []


def test_health_passes_once_started(apertium: ApertiumEngine) -> None:
    apertium.health()
    assert apertium.describe()["pairs"] == len(apertium.pairs()) > 0
