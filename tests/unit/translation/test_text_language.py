"""The language of a text among candidates (subtitle files sent with source_lang=auto)."""

from __future__ import annotations

import pytest

from engines.translation.text_language import detect_text_language

TEXTS = {
    "en": "The weather is nice today. We walk to the market and buy fresh bread, then we go home.",
    "es": "Hoy hace buen tiempo. Caminamos al mercado, compramos pan fresco y volvemos a casa.",
    "de": "Heute ist schönes Wetter. Wir gehen zum Markt, kaufen frisches Brot und gehen nach Hause.",
    "fr": "Il fait beau aujourd'hui. Nous allons au marché, achetons du pain frais et rentrons.",
}


@pytest.mark.parametrize("lang", sorted(TEXTS))
def test_each_text_is_found_in_its_language(lang: str) -> None:
    found = detect_text_language(TEXTS[lang], sorted(TEXTS))
    assert found is not None and found[0] == lang and found[1] > 0.9


def test_only_candidates_are_answered_and_unknowns_give_none() -> None:
    found = detect_text_language(TEXTS["de"], ["en", "es"])  # German is not offered: the likelier of the two
    assert found is not None and found[0] in ("en", "es") and 0.5 <= found[1] <= 1.0
    assert detect_text_language("12:30 — 14:45 !!", ["en", "es"]) is None  # no letters
    assert detect_text_language(TEXTS["en"], ["xx", "yy"]) is None  # no candidate langid knows
    assert detect_text_language(TEXTS["es"], ["es-MX", "en"])[0] == "es-MX"  # type: ignore[index]  # regional codes
