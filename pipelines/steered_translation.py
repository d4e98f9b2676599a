"""A task's translations, steered by what its client gave (docs/steering.md): context, instructions, a memory.

Every request a video, subtitle or revision task sends to the translator passes through :class:`Steering`:

* the task's ``context`` and ``instructions`` join the request's hints (the translating model reads them;
  engines without a model ignore them);
* with a ``memory_id`` whose pair is the request's, each segment is looked up in the memory
  (``engines.translation.memory``): an exact match (case and spacing aside) is the memory's translation,
  verbatim, and never reaches an engine; the others carry the memory's closest pairs as examples. The memory
  is read once per task, when it is first needed, so what it learned since the submission is used; a memory
  deleted meanwhile steers nothing.

Condensing requests (a draft to shorten) are not looked up: they rewrite a translation already made.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from core.memories import memory_index
from engines.translation.base import TranslationRequest, TranslationResult
from engines.translation.glossary import Glossary
from engines.translation.languages import primary
from engines.translation.memory import MemoryIndex, plan_memory

log = logging.getLogger("mediatrans.worker")

Translate = Callable[[TranslationRequest, Glossary | None], Awaitable[TranslationResult]]
#: Sources kept in a task's result to say which segments the memory answered.
MAX_REPORTED = 200


class MemorySource(Protocol):
    """What steering reads a memory from (``core.memories.MemoryStore``)."""

    async def get(self, memory_id: str) -> dict[str, Any] | None: ...

    async def pairs(self, memory_id: str) -> list[tuple[str, str]]: ...


@dataclasses.dataclass
class Steering:
    """The steering of one task's requests, and what the memory answered."""

    context: str | None = None
    instructions: tuple[str, ...] = ()
    memory_id: str | None = None
    memories: MemorySource | None = None
    from_memory: list[str] = dataclasses.field(default_factory=list)
    exact: int = 0
    with_examples: int = 0
    _memory: tuple[dict[str, Any], MemoryIndex] | None = None
    _read: bool = False
    _lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)

    def wrap(self, translate: Translate) -> Translate:
        """``translate`` with this task's steering."""

        async def steered(request: TranslationRequest, glossary: Glossary | None) -> TranslationResult:
            return await self.translate(translate, request, glossary)

        return steered

    async def translate(self, translate: Translate, request: TranslationRequest, glossary: Glossary | None) -> TranslationResult:
        request = self._hinted(request)
        memory = await self._index(request) if request.hints.draft is None else None
        if memory is None:
            return await translate(request, glossary)
        plan = plan_memory(request.texts, memory)
        sub = plan.request(request)
        self.exact += len(plan.exact)
        self.from_memory += [request.texts[i] for i in sorted(plan.exact)][: MAX_REPORTED - len(self.from_memory)]
        if sub is None:
            texts = plan.merge(request, ())
            return TranslationResult(texts, engine="memory", route=(request.source_lang, request.target_lang))
        self.with_examples += sum(1 for i in plan.pending if plan.examples[i])
        result = await translate(sub, glossary)
        return dataclasses.replace(result, texts=plan.merge(request, result.texts))

    def report(self) -> dict[str, Any] | None:
        """The task result's ``memory``: the memory, how many segments it answered, and their sources."""
        if self.memory_id is None:
            return None
        return {
            "memory_id": self.memory_id,
            "segments_from_memory": self.exact,
            "segments_with_examples": self.with_examples,
            "from_memory": list(self.from_memory),
        }

    def _hinted(self, request: TranslationRequest) -> TranslationRequest:
        if not self.context and not self.instructions:
            return request
        hints = dataclasses.replace(request.hints, client_context=self.context, instructions=self.instructions)
        return dataclasses.replace(request, hints=hints)

    async def _index(self, request: TranslationRequest) -> MemoryIndex | None:
        """The memory's index when it is for the request's pair (read on first use)."""
        if self.memory_id is None or self.memories is None:
            return None
        async with self._lock:
            if not self._read:
                self._read = True
                self._memory = await self._load(self.memory_id, self.memories)
        if self._memory is None:
            return None
        record, index = self._memory
        if primary(record["source_lang"]) != primary(request.source_lang):
            return None
        return index if record["target_lang"] in (request.target_lang, primary(request.target_lang)) else None

    @staticmethod
    async def _load(memory_id: str, memories: MemorySource) -> tuple[dict[str, Any], MemoryIndex] | None:
        record = await memories.get(memory_id)
        if record is None:
            log.warning("memory %s is gone; translating without it", memory_id)
            return None
        return record, await memory_index(memories, record)
