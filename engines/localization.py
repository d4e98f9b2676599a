"""Game text localization: one source text into many targets, in parallel.

Plain async logic over a ``translate`` callable (the Translator deployment's
handle in Serve, an engine in tests). Rules:

* Line structure is kept: each non-empty line is one segment; empty lines stay.
* Every target is translated concurrently.
* An optional glossary is applied to the targets it covers.
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
    glossary: Glossary | None = None

    def glossary_for(self, target: str) -> Glossary | None:
        """The glossary when it covers ``target`` (a glossary has one target language)."""
        if self.glossary is not None and self.glossary.applies_to(self.source_lang, target):
            return self.glossary
        return None


@dataclasses.dataclass(frozen=True)
class LocalizationOutcome:
    translations: dict[str, str]
    shortened: tuple[str, ...]
    engines: dict[str, str]
    fallback: tuple[str, ...]


async def localize(job: LocalizationJob, translate: Translate) -> LocalizationOutcome:
    hints = TranslationHints(content_type=job.content_type, genre=job.genre, tone=job.tone, max_length=job.max_length)
    results = await asyncio.gather(*(_one(job, target, hints, translate) for target in job.target_langs))
    translations = {target: text for target, (text, _, _) in zip(job.target_langs, results)}
    shortened = tuple(t for t, (_, short, _) in zip(job.target_langs, results) if short)
    engines = {t: r.engine for t, (_, _, r) in zip(job.target_langs, results)}
    fallback = tuple(t for t, (_, _, r) in zip(job.target_langs, results) if r.fallback)
    return LocalizationOutcome(translations, shortened, engines, fallback)


async def _one(
    job: LocalizationJob, target: str, hints: TranslationHints, translate: Translate
) -> tuple[str, bool, TranslationResult]:
    lines = job.text.split("\n")
    segments = tuple(line for line in lines if line.strip())
    glossary = job.glossary_for(target)
    result = await translate(TranslationRequest(segments, job.source_lang, target, hints=hints), glossary)
    text = _rejoin(lines, result.texts)
    if job.max_length is None or len(text) <= job.max_length:
        return text, False, result
    shorter = dataclasses.replace(hints, max_length=job.max_length)
    retry = await translate(TranslationRequest(segments, job.source_lang, target, hints=shorter), glossary)
    text = min(text, _rejoin(lines, retry.texts), key=len)
    if len(text) <= job.max_length:
        return text, True, retry
    return shorten(text, job.max_length), True, retry


def _rejoin(lines: list[str], translated: tuple[str, ...] | list[str]) -> str:
    """Put translated segments back in place of the non-empty lines, keeping blank ones."""
    it = iter(translated)
    return "\n".join(next(it) if line.strip() else line for line in lines)
