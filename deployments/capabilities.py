"""What the running engines can do, as reported by each capability deployment.

The ingress merges the reports of every deployment into one
:class:`Capabilities` and derives the language list's flags and
``source``/``target`` answers from it, so ``GET /v1/languages`` never
promises what the deployed cluster cannot do.
"""

from __future__ import annotations

import dataclasses


def primary(code: str) -> str:
    """``pt-BR`` → ``pt``: the language of a (possibly regional) API code."""
    return code.split("-")[0]


def translates(pairs: frozenset[tuple[str, str]], source: str, target: str) -> bool:
    """Text in ``source`` can be delivered in ``target``: a served pair, or the same language."""
    return source == primary(target) or (source, target) in pairs


@dataclasses.dataclass(frozen=True)
class Capabilities:
    """Language support of one deployment, or of the whole service once merged.

    Attributes:
        translation_pairs: (source, target) API codes the translator serves;
            targets may be regional variants.
        formality_targets: targets where a formality hint changes the output.
        speech_languages: languages speech recognition can transcribe.
        ocr_languages: languages image OCR can read.
        document_languages: languages document-format translation handles.
    """

    translation_pairs: frozenset[tuple[str, str]] = frozenset()
    formality_targets: frozenset[str] = frozenset()
    speech_languages: frozenset[str] = frozenset()
    ocr_languages: frozenset[str] = frozenset()
    document_languages: frozenset[str] = frozenset()

    def merge(self, other: Capabilities) -> Capabilities:
        return Capabilities(**{f.name: getattr(self, f.name) | getattr(other, f.name) for f in dataclasses.fields(self)})

    def translates(self, source: str, target: str) -> bool:
        return translates(self.translation_pairs, source, target)

    @property
    def translation_languages(self) -> frozenset[str]:
        """Primary codes that occur on either side of a pair."""
        return frozenset(primary(code) for pair in self.translation_pairs for code in pair)
