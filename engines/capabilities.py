"""What the running engines can do, as reported by each capability deployment.

The ingress merges the reports of every deployment into one
:class:`Capabilities` and derives the language list's flags and
``source``/``target`` answers from it, so ``GET /v1/languages`` never
promises what the deployed cluster cannot do.
"""

from __future__ import annotations

import dataclasses

from engines.translation.languages import primary


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
        pair_routes: offered pairs → (the engine that serves them first, its measured chrF or None).
        withheld_pairs: pairs an engine could translate but the routing table does not offer,
            with why: ``(best engine, its chrF or None when unmeasured, the floor)``.
    """

    translation_pairs: frozenset[tuple[str, str]] = frozenset()
    formality_targets: frozenset[str] = frozenset()
    speech_languages: frozenset[str] = frozenset()
    ocr_languages: frozenset[str] = frozenset()
    document_languages: frozenset[str] = frozenset()
    pair_routes: dict[tuple[str, str], tuple[str, float | None]] = dataclasses.field(default_factory=dict)
    withheld_pairs: dict[tuple[str, str], tuple[str, float | None, float]] = dataclasses.field(default_factory=dict)

    def merge(self, other: Capabilities) -> Capabilities:
        return Capabilities(**{f.name: getattr(self, f.name) | getattr(other, f.name) for f in dataclasses.fields(self)})

    def translates(self, source: str, target: str) -> bool:
        return translates(self.translation_pairs, source, target)

    def refusal(self, source: str, target: str) -> str:
        """Why ``source`` → ``target`` is refused, with the pair's measured quality when it has one."""
        withheld = self.withheld_pairs.get((source, target))
        if withheld is None:
            return f"Translation {source} → {target} is not available on this service."
        engine, chrf, floor = withheld
        if chrf is None:
            return f"Translation {source} → {target} is not offered: its quality has not been measured yet."
        return (
            f"Translation {source} → {target} is not offered: its best measured quality is chrF {chrf:.1f} ({engine}), "
            f"below this service's floor of chrF {floor:.1f}."
        )

    @property
    def translation_languages(self) -> frozenset[str]:
        """Primary codes that occur on either side of a pair."""
        return frozenset(primary(code) for pair in self.translation_pairs for code in pair)
