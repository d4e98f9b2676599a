"""The protocol of grammar engines and what they share.

A grammar engine checks text in the languages it reports and returns
:class:`~engines.grammar.types.Issue` objects with stable rule ids
from its :meth:`GrammarEngine.rules`. Engines are combined by the ``Grammar``
deployment, which splits long texts into chunks of whole sentences
(engines with ``chunkable``), runs every engine that serves the language and
merges their issues (``merge.py``).
"""

from __future__ import annotations

import abc
import re
import unicodedata
from typing import ClassVar

from engines.base import Engine
from engines.grammar.types import CheckOptions, Issue, Rule


class GrammarEngine(Engine):
    """Base class of grammar, spelling and style checkers."""

    #: Whether the engine may check sentence-aligned chunks of a long text independently.
    chunkable: ClassVar[bool] = True
    #: Chunk size for this engine (None: the checker's); small for slow engines, so chunks of one
    #: text run on several cores at once.
    chunk_chars: ClassVar[int | None] = None
    #: Merge priority: when two engines flag overlapping spans, the higher one's issue is kept.
    priority: ClassVar[int] = 0

    @abc.abstractmethod
    def languages(self) -> frozenset[str]:
        """API language codes this engine checks."""

    @abc.abstractmethod
    def rules(self) -> list[Rule]:
        """Every rule this engine can report, with its stable id."""

    @abc.abstractmethod
    def check(self, text: str, options: CheckOptions) -> list[Issue]:
        """Issues in ``text`` (offsets in code points of ``text``)."""


def stable_id(prefix: str, name: str) -> str:
    """``("EN_HARPER", "AnA")`` → ``EN_HARPER_AN_A``: an engine's rule name as a catalogue id (ASCII)."""
    name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return f"{prefix}_{re.sub(r'[^A-Za-z0-9]+', '_', spaced).strip('_').upper()}"
