"""Hunspell dictionaries in legacy 8-bit charsets: no crash on foreign letters, readable suggestions."""

from __future__ import annotations

import pytest

from engines.grammar.hunspell_engine import HunspellEngine
from engines.grammar.types import CheckOptions


@pytest.fixture(scope="module")
def hunspell() -> HunspellEngine:
    engine = HunspellEngine(languages=["pl", "el", "sl", "lt"])
    engine.start()
    return engine


@pytest.mark.parametrize(
    ("lang", "text", "wrong", "fix"),
    [
        ("pl", "Trener Muñoz pojechał do Gdańska, było cieplo.", "cieplo", "ciepło"),
        ("el", "Ο Dvořák είπε ότι η κυβέρνιση αποφάσισε.", "κυβέρνιση", "κυβέρνηση"),
        ("sl", "Včeraj je bil sončon dan.", "sončon", "sončno"),
        ("lt", "Vyriasybė posėdžiavo vakar.", "Vyriasybė", "Vyriausybė"),
    ],
)
def test_legacy_charset_dictionaries(hunspell: HunspellEngine, lang: str, text: str, wrong: str, fix: str) -> None:
    issues = hunspell.check(text, CheckOptions(lang))
    assert [text[i.offset : i.end] for i in issues] == [wrong]  # the foreign names are left alone, not a crash
    assert fix in issues[0].replacements


def test_a_case_ending_after_a_number_is_not_a_word() -> None:
    engine = HunspellEngine(languages=["tr"])
    engine.start()
    text = "Tren saat 07.15'te kalkıyor, 2019'da açıldı ve yolcu sayısı artmıştır ama biletler pahalii."
    assert [text[i.offset : i.end] for i in engine.check(text, CheckOptions("tr"))] == ["pahalii"]
