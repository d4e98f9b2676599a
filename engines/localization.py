"""Game text localization: one source text into many targets, in parallel.

Plain async logic over a ``translate`` callable (the Translator deployment's
handle in Serve, an engine in tests). Rules:

* Line structure is kept: each non-empty line is one segment; empty lines stay.
* Every target is translated concurrently.
* Glossaries apply to the targets they are for (one per target, merged at the edge).
* The client's ``context`` and ``instructions`` join the hints of every target.
* A translation memory's plan (``memory_plan``, made at the edge for ``memory_target``): lines the memory
  holds are its translations, verbatim; the others carry its closest pairs as examples. The outcome says
  which lines the memory answered (``from_memory``).
* ``max_length``: a translation longer than the limit is first re-requested
  with the limit as a hint (an LLM engine can rephrase shorter; apertium
  cannot), then shortened deterministically by
  :func:`engines.translation.length.shorten`, which never cuts
  inside a placeholder or markup tag. Targets that needed it are reported.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable

from engines.translation.base import TranslationHints, TranslationRequest, TranslationResult
from engines.translation.glossary import Glossary
from engines.translation.length import shorten
from engines.translation.memory import MemoryPlan

Translate = Callable[[TranslationRequest, Glossary | None], Awaitable[TranslationResult]]


@dataclasses.dataclass(frozen=True)
class LocalizationJob:
    text: str
    source_lang: str
    target_langs: tuple[str, ...]
    content_type: str
    genre: str | None = None
    tone: str | None = None
    max_length: int | None = None
    glossaries: tuple[Glossary, ...] = ()
    context: str | None = None
    instructions: tuple[str, ...] = ()
    memory_target: str | None = None
    memory_plan: MemoryPlan | None = None

    def glossary_for(self, target: str) -> Glossary | None:
        """The glossary for ``target``, if any (a glossary has one target language)."""
        return next((g for g in self.glossaries if g.applies_to(self.source_lang, target)), None)

    def plan_for(self, target: str) -> MemoryPlan | None:
        return self.memory_plan if target == self.memory_target else None


def segments_of(text: str) -> tuple[str, ...]:
    """What is translated of a game text: its non-empty lines, in order."""
    return tuple(line for line in text.split("\n") if line.strip())


@dataclasses.dataclass(frozen=True)
class LocalizationOutcome:
    translations: dict[str, str]
    shortened: tuple[str, ...]
    engines: dict[str, str]
    fallback: tuple[str, ...]
    from_memory: dict[str, tuple[int, ...]] = dataclasses.field(default_factory=dict)


async def localize(job: LocalizationJob, translate: Translate) -> LocalizationOutcome:
    hints = TranslationHints(
        content_type=job.content_type, genre=job.genre, tone=job.tone, max_length=job.max_length,
        client_context=job.context, instructions=job.instructions,
    )  # fmt: skip
    results = await asyncio.gather(*(_one(job, target, hints, translate) for target in job.target_langs))
    translations = {target: text for target, (text, _, _) in zip(job.target_langs, results)}
    shortened = tuple(t for t, (_, short, _) in zip(job.target_langs, results) if short)
    engines = {t: r.engine for t, (_, _, r) in zip(job.target_langs, results)}
    fallback = tuple(t for t, (_, _, r) in zip(job.target_langs, results) if r.fallback)
    from_memory = {}
    for target in job.target_langs:
        plan = job.plan_for(target)
        if plan is not None and plan.exact:
            from_memory[target] = _line_numbers(job.text, sorted(plan.exact))
    return LocalizationOutcome(translations, shortened, engines, fallback, from_memory)


async def _one(
    job: LocalizationJob, target: str, hints: TranslationHints, translate: Translate
) -> tuple[str, bool, TranslationResult]:
    lines = job.text.split("\n")
    segments = segments_of(job.text)
    glossary = job.glossary_for(target)
    plan = job.plan_for(target)
    result = await _translate(TranslationRequest(segments, job.source_lang, target, hints=hints), glossary, plan, translate)
    text = _rejoin(lines, result.texts)
    if job.max_length is None or len(text) <= job.max_length:
        return text, False, result
    shorter = dataclasses.replace(hints, max_length=job.max_length)
    retry = await _translate(TranslationRequest(segments, job.source_lang, target, hints=shorter), glossary, plan, translate)
    text = min(text, _rejoin(lines, retry.texts), key=len)
    if len(text) <= job.max_length:
        return text, True, retry
    return shorten(text, job.max_length), True, retry


async def _translate(
    request: TranslationRequest, glossary: Glossary | None, plan: MemoryPlan | None, translate: Translate
) -> TranslationResult:
    """The request translated, the memory's exact matches in place (they never reach an engine)."""
    if plan is None:
        return await translate(request, glossary)
    sub = plan.request(request)
    if sub is None:
        return TranslationResult(plan.merge(request, ()), engine="memory", route=(request.source_lang, request.target_lang))
    result = await translate(sub, glossary)
    return dataclasses.replace(result, texts=plan.merge(request, result.texts))


def _line_numbers(text: str, segments: list[int]) -> tuple[int, ...]:
    """The text's line numbers (0-based, blank lines counted) of these segment numbers."""
    filled = [n for n, line in enumerate(text.split("\n")) if line.strip()]
    return tuple(filled[i] for i in segments)


def _rejoin(lines: list[str], translated: tuple[str, ...] | list[str]) -> str:
    """Put translated segments back in place of the non-empty lines, keeping blank ones."""
    it = iter(translated)
    return "\n".join(next(it) if line.strip() else line for line in lines)
