"""The language catalogue behind ``GET /v1/languages`` (contract 2.3 and 4.8).

Names come from ``configs/languages.yaml``; every flag comes from the merged
engine :class:`~engines.capabilities.Capabilities`:

* ``supports_glossary``: the language is on either side of a translation pair.
* ``supports_formality``: a translation engine honours formality into it.
* ``supports_speech``: speech recognition transcribes it.
* ``supports_ocr`` / ``supports_document``: an OCR / document engine serves it.

``type=translation`` (the default) lists the whole catalogue; ``speech`` and
``ocr`` keep the languages with that support. ``source``/``target`` answer from
the real pair set, with the regional-variant rules of the contract: a source
variant maps to its primary, a target variant is looked up as such.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import yaml

from core.errors import ApiError, ErrorKind
from engines.capabilities import Capabilities
from engines.translation.languages import primary

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "configs" / "languages.yaml"


@dataclasses.dataclass(frozen=True)
class Language:
    code: str
    name: str
    name_en: str
    variants: tuple[str, ...] = ()


class UnknownLanguage(ValueError):
    """A code that is neither a catalogue language nor one of its variants."""


class Catalog:
    def __init__(self, languages: list[Language]) -> None:
        self.languages = languages
        self._by_code = {lang.code: lang for lang in languages}
        self._variants = {v.lower(): v for lang in languages for v in lang.variants}

    @classmethod
    def load(cls, path: Path = DEFAULT_PATH) -> Catalog:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        variants = data.get("variants", {})
        return cls(
            [
                Language(str(row["code"]), row["name"], row["name_en"], tuple(variants.get(str(row["code"]), ())))
                for row in data["languages"]
            ]
        )

    @property
    def codes(self) -> frozenset[str]:
        return frozenset(self._by_code)

    @property
    def accepted_codes(self) -> list[str]:
        """Every code a request may name: the languages and their regional variants, sorted."""
        return sorted(self._by_code.keys() | set(self._variants.values()))

    def canonical(self, code: str) -> str:
        """``PT-br`` → ``pt-BR``, ``EN`` → ``en``; raise UnknownLanguage otherwise."""
        lowered = code.strip().lower()
        if lowered in self._by_code:
            return lowered
        if lowered in self._variants:
            return self._variants[lowered]
        raise UnknownLanguage(code)

    def primary(self, code: str) -> str:
        return primary(self.canonical(code))

    def resolve(self, code: str, field: str, *, kind: ErrorKind = ErrorKind.INVALID_PARAMETER, as_primary: bool = False) -> str:
        """:meth:`canonical` (or :meth:`primary`) of request field ``field``; an unknown code is the API error ``kind``.

        The one place a code no catalogue language matches becomes an answer: ``UNSUPPORTED_LANGUAGE`` where
        the contract's table for the endpoint has it (video, game, glossaries, grammar), ``INVALID_PARAMETER``
        where it does not (voices, speech, the language list).
        """
        try:
            return self.primary(code) if as_primary else self.canonical(code)
        except UnknownLanguage:
            raise ApiError(
                kind,
                f"{field} {code!r} is not a supported language code.",
                details=[{"field": field, "message": "unknown language code"}],
            ) from None

    def records(self, caps: Capabilities) -> list[dict[str, Any]]:
        glossary = caps.translation_languages
        return [
            {
                "code": lang.code,
                "name": lang.name,
                "name_en": lang.name_en,
                "supports_formality": lang.code in caps.formality_targets,
                "supports_glossary": lang.code in glossary,
                "supports_speech": lang.code in caps.speech_languages,
                "supports_ocr": lang.code in caps.ocr_languages,
                "supports_document": lang.code in caps.document_languages,
                **({"variants": list(lang.variants)} if lang.variants else {}),
            }
            for lang in self.languages
        ]

    def query(
        self,
        caps: Capabilities,
        *,
        type: str = "translation",
        capability: str | None = None,
        source: str | None = None,
        target: str | None = None,
    ) -> list[dict[str, Any]]:
        """Filtered records; arguments must already be validated."""
        rows = self.records(caps)
        if type != "translation":
            rows = [r for r in rows if r[f"supports_{type}"]]
        if capability:
            rows = [r for r in rows if r[f"supports_{capability}"]]
        if source:
            src = self.primary(source)
            reachable = {primary(t) for s, t in caps.translation_pairs if s == src}
            rows = [_with_route(r, caps, (src, r["code"])) for r in rows if r["code"] in reachable]
        if target:
            tgt = self.canonical(target)
            origins = {s for s, t in caps.translation_pairs if t == tgt}
            rows = [_with_route(r, caps, (r["code"], tgt)) for r in rows if r["code"] in origins]
        return rows


def _with_route(row: dict[str, Any], caps: Capabilities, pair: tuple[str, str]) -> dict[str, Any]:
    """``row`` with the engine serving ``pair`` and its measured chrF (extension), when the translator reports one."""
    route = caps.pair_routes.get(pair)
    if route is None:
        return row
    return {**row, "route": {"engine": route[0], "chrf": route[1]}}
