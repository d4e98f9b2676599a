"""Language catalogue: flags and filters follow the engines' capability report."""

from __future__ import annotations

import pytest

from engines.capabilities import Capabilities
from serve_app.catalog import Catalog, UnknownLanguage

CAPS = Capabilities(
    translation_pairs=frozenset({("en", "es"), ("es", "en"), ("en", "pt"), ("en", "pt-BR"), ("es", "pt-BR"), ("fr", "es")}),
    formality_targets=frozenset({"es"}),
    speech_languages=frozenset({"en", "ja"}),
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def codes(rows: list[dict]) -> set[str]:
    return {r["code"] for r in rows}


def test_catalogue_has_the_49_contract_codes(catalog: Catalog) -> None:
    expected = set(
        [
            "af",
            "sq",
            "ar",
            "hy",
            "az",
            "bn",
            "bg",
            "my",
            "ca",
            "zh",
            "hr",
            "cs",
            "da",
            "nl",
            "en",
            "et",
            "fi",
            "fr",
            "ka",
            "de",
            "el",
            "he",
            "hi",
            "hu",
            "is",
            "id",
            "it",
            "ja",
            "ko",
            "lv",
            "lt",
            "ms",
            "no",
            "fa",
            "pl",
            "pt",
            "ro",
            "ru",
            "sr",
            "sk",
            "sl",
            "es",
            "sw",
            "sv",
            "tl",
            "th",
            "tr",
            "uk",
            "vi",
        ]
    )
    assert catalog.codes == expected


def test_flags_come_from_capabilities(catalog: Catalog) -> None:
    rows = {r["code"]: r for r in catalog.records(CAPS)}
    assert rows["es"]["supports_formality"] and not rows["en"]["supports_formality"]
    assert {c for c, r in rows.items() if r["supports_glossary"]} == {"en", "es", "pt", "fr"}
    assert {c for c, r in rows.items() if r["supports_speech"]} == {"en", "ja"}
    assert not any(r["supports_ocr"] or r["supports_document"] for r in rows.values())


def test_nothing_is_promised_without_engines(catalog: Catalog) -> None:
    rows = catalog.records(Capabilities())
    assert len(rows) == 49
    assert not any(v for r in rows for k, v in r.items() if k.startswith("supports_"))


def test_type_and_capability_filters(catalog: Catalog) -> None:
    assert len(catalog.query(CAPS)) == 49
    assert codes(catalog.query(CAPS, type="speech")) == {"en", "ja"}
    assert codes(catalog.query(CAPS, type="ocr")) == set()
    assert codes(catalog.query(CAPS, capability="formality")) == {"es"}


def test_source_and_target(catalog: Catalog) -> None:
    assert codes(catalog.query(CAPS, source="en")) == {"es", "pt"}
    assert codes(catalog.query(CAPS, source="en-GB")) == {"es", "pt"}  # source variant → primary
    assert codes(catalog.query(CAPS, target="pt-BR")) == {"en", "es"}
    assert codes(catalog.query(CAPS, target="pt")) == {"en"}
    assert codes(catalog.query(CAPS, source="en", target="es")) == set()  # filters intersect: targets of en ∩ sources into es


@pytest.mark.parametrize(("given", "canonical"), [("EN", "en"), ("pt-br", "pt-BR"), ("ZH-tw", "zh-TW"), (" fr ", "fr")])
def test_canonical(catalog: Catalog, given: str, canonical: str) -> None:
    assert catalog.canonical(given) == canonical


@pytest.mark.parametrize("bad", ["", "xx", "pt-XX", "english", "auto", "en_US"])
def test_unknown_codes(catalog: Catalog, bad: str) -> None:
    with pytest.raises(UnknownLanguage):
        catalog.canonical(bad)


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("en", "es", True),
        ("en", "pt-BR", True),
        ("fr", "es", True),
        ("en", "en-GB", True),
        ("en", "ja", False),
        ("es", "fr", False),
    ],
)
def test_translates_served_pairs_and_the_same_language(source: str, target: str, expected: bool) -> None:
    assert CAPS.translates(source, target) is expected


def test_source_and_target_answers_carry_each_pairs_route(catalog: Catalog) -> None:
    caps = Capabilities(
        translation_pairs=frozenset({("en", "es"), ("en", "no"), ("no", "en")}),
        pair_routes={("en", "es"): ("llm", 61.2), ("en", "no"): ("llm>sv>apertium", 41.3)},
    )
    rows = {r["code"]: r for r in catalog.query(caps, source="en")}
    assert rows["es"]["route"] == {"engine": "llm", "chrf": 61.2}
    assert rows["no"]["route"] == {"engine": "llm>sv>apertium", "chrf": 41.3}
    assert "route" not in next(r for r in catalog.query(caps, target="en") if r["code"] == "no")  # no route reported
    assert all("route" not in r for r in catalog.query(caps))  # only with source or target
