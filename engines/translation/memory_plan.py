"""What a translation memory settles for one request: exact matches, and examples for the rest.

``memory.plan_memory`` makes the plan; the caller sends ``plan.request(r)``
(the texts still to translate, each with its examples) to the translator,
then ``plan.merge(r, translated)`` gives every text back in order, the exact
matches verbatim. Engines never see the exact matches, so the ones that
cannot use examples (Apertium, the fast path) still benefit from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engines.translation.base import TranslationRequest

Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class MemoryPlan:
    """Per text of a request: its memory target when the memory has it exactly, else its example pairs.

    Attributes:
        exact: index into the texts → the memory's target, used verbatim.
        examples: per text (all of them; empty for exact ones), example pairs closest first.
    """

    exact: dict[int, str]
    examples: tuple[Pairs, ...]

    @property
    def pending(self) -> tuple[int, ...]:
        """Indices of the texts that still need translating, in order."""
        return tuple(i for i in range(len(self.examples)) if i not in self.exact)

    @property
    def from_memory(self) -> tuple[bool, ...]:
        """Per text: True when its translation is the memory's."""
        return tuple(i in self.exact for i in range(len(self.examples)))

    def request(self, request: TranslationRequest) -> TranslationRequest | None:
        """The sub-request of the pending texts, with their examples; None when the memory settles every text.

        Context, following lines and hints are kept.
        """
        self._check(request)
        pending = self.pending
        if not pending:
            return None
        examples = tuple(self.examples[i] for i in pending)
        return replace(
            request,
            texts=tuple(request.texts[i] for i in pending),
            examples=examples if any(examples) else (),
        )

    def merge(self, request: TranslationRequest, translated: Sequence[str]) -> tuple[str, ...]:
        """Every text's translation in order: exact targets (in the text's own outer whitespace) and ``translated``."""
        self._check(request)
        pending = self.pending
        if len(translated) != len(pending):
            raise ValueError(f"{len(translated)} translations for {len(pending)} pending texts")
        answers = dict(zip(pending, translated, strict=True))
        return tuple(
            _in_layout(request.texts[i], self.exact[i]) if i in self.exact else answers[i] for i in range(len(request.texts))
        )

    def _check(self, request: TranslationRequest) -> None:
        if len(request.texts) != len(self.examples):
            raise ValueError(f"plan is for {len(self.examples)} texts, request has {len(request.texts)}")


def _in_layout(text: str, target: str) -> str:
    """``target`` with ``text``'s leading and trailing whitespace (layout, as engines keep it)."""
    core = text.strip()
    if not core:
        return text
    start = text.index(core)
    return text[:start] + target.strip() + text[start + len(core) :]
