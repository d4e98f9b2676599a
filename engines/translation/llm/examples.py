"""In-context examples for the LLM translator: a few short pairs like the request, shown before it.

The bank (``configs/translation-examples/<code>.tsv``; id, content type,
English, translation) is multi-parallel: every language translates the same
short English strings, so any two of its languages form example pairs. It is
written apart from the development set that scores the translator
(``configs/devset``), and no sentence of one is in the other, so scores stay
honest (a test keeps them apart).

For a request the bank offers the examples closest to it: the same content
type first, then the same use of placeholders, then the same length class
(short strings or sentences). The choice deliberately takes no finer
measure than these classes: requests alike in them get the same examples,
so the prompt's prefix (system rules and examples) is one the server has
already read, and its prompt cache serves it (docs/llm.md).
Placeholders of the examples (``{count}``) are shown as the sentinels the
model sees in real requests (``<x0/>``).

A client's translation memory, when the request carries its pairs
(``TranslationRequest.examples``), replaces the bank: ``memory_examples``
takes the closest pairs of every segment of a batch, round by round.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engines.translation.languages import primary
from engines.translation.sentinels import SENTINEL

#: A placeholder of the bank's own texts: ``{count}``, ``{player}``.
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
#: The sentinel the model sees in a real request.
_SENTINEL_SEEN = re.compile(r"<x\d+/>")

#: Up to this many characters a text is short (a label, a short line).
SHORT_CHARS = 40

#: Content types that are one kind of text for choosing examples.
_KIND = {"item": "item_desc", "subtitles": "subtitle", "srt": "subtitle", "vtt": "subtitle"}


@dataclass(frozen=True)
class Example:
    """One example pair, placeholders already shown as sentinels."""

    content_type: str
    source: str
    target: str


@dataclass(frozen=True)
class ExampleBank:
    """Example strings per language, aligned by id across languages."""

    content_types: dict[str, str]
    texts: dict[str, dict[str, str]]  # language -> id -> text (English included)

    @classmethod
    def load(cls, folder: str | Path) -> ExampleBank:
        """Read every ``<code>.tsv`` of ``folder``; ``ValueError`` on a malformed row."""
        content_types: dict[str, str] = {}
        texts: dict[str, dict[str, str]] = {"en": {}}
        for path in sorted(Path(folder).glob("*.tsv")):
            rows = {}
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                cells = line.split("\t")
                if len(cells) != 4 or not all(c.strip() for c in cells):
                    raise ValueError(f"{path.name} line {number}: expected id, content type, English, translation")
                key, kind, english, translated = (c.strip() for c in cells)
                content_types[key] = kind
                texts["en"][key] = english
                rows[key] = translated
            texts[path.stem] = rows
        return cls(content_types, texts)

    def languages(self) -> frozenset[str]:
        return frozenset(self.texts)

    def pick(self, source: str, target: str, text: str, content_type: str | None, k: int) -> list[Example]:
        """Up to ``k`` examples for translating ``text`` from ``source`` into ``target``, closest first."""
        sources, targets = self.texts.get(primary(source)), self.texts.get(primary(target))
        if k <= 0 or not sources or not targets:
            return []
        wanted = _KIND.get(content_type or "", content_type)
        has_token = bool(_SENTINEL_SEEN.search(text) or _PLACEHOLDER.search(text))

        short = _is_short(text)

        def distance(key: str) -> tuple[int, int, int, str]:
            example = sources[key]
            return (
                0 if wanted and self.content_types[key] == wanted else 1,
                0 if bool(_PLACEHOLDER.search(example)) == has_token else 1,
                0 if _is_short(example) == short else 1,
                key,
            )

        keys = sorted((key for key in sources if key in targets), key=distance)[:k]
        return [Example(self.content_types[key], _as_sentinels(sources[key]), _as_sentinels(targets[key])) for key in keys]


def _is_short(text: str) -> bool:
    """A label or short line rather than a sentence or two."""
    return len(text) <= SHORT_CHARS


def _as_sentinels(text: str) -> str:
    """``{count}`` → ``<x0/>``, numbered in order, as the safety layer would protect it."""
    counter = iter(range(1000))
    return _PLACEHOLDER.sub(lambda m: SENTINEL.format(next(counter)), text)


def memory_examples(per_text: Sequence[Sequence[tuple[str, str]]], cap: int) -> list[tuple[str, str]]:
    """Up to ``cap`` memory pairs for a batch, closest first: every segment's closest, then every second closest...

    A pair shown once is not repeated.
    """
    picked: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for rank in range(max((len(pairs) for pairs in per_text), default=0)):
        for pairs in per_text:
            if len(picked) >= cap:
                return picked
            if rank < len(pairs) and pairs[rank] not in seen:
                seen.add(pairs[rank])
                picked.append(pairs[rank])
    return picked


@lru_cache(maxsize=4)
def load_bank(folder: str) -> ExampleBank:
    """One bank per folder per process (every replica's engines share it)."""
    return ExampleBank.load(folder)
