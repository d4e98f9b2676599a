"""Reading speed: translations too long for the time they are shown are condensed (docs/timed-text.md).

After the translation is laid out and timed, a sentence whose cues still read faster than the preset's
characters per second (all the time its speech and the timing rules allow is already used) is translated
again with a length budget: the characters that time holds at that speed. The shorter translation is
kept only when it is shorter and keeps what matters (``subtitles.condense.keeps_meaning``: numbers,
negations, names, glossary terms); otherwise the full one stays and the cue is reported as too fast.
Only engines that follow a length budget (the LLM) can condense; the others answer at full length, which
is refused as not shorter.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from deployments.engines.translation.base import TranslationHints, TranslationRequest, TranslationResult
from pipelines.subtitles.condense import char_budget, keeps_meaning
from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.translation import layout_groups
from pipelines.subtitles.types import Cue

log = logging.getLogger(__name__)

#: Most sentences one task condenses, and how many requests run at once.
MAX_CONDENSED = 400
CONCURRENCY = 4
#: Reading speed this much over the preset's counts as too fast (rounding of times).
SLACK_CPS = 0.05
CONTEXT = 2

Translate = Callable[[TranslationRequest], Awaitable[TranslationResult]]


def too_fast(cues: Sequence[Cue], options: SegmentationOptions) -> bool:
    """Whether any of a sentence's cues reads faster than ``options.max_cps``."""
    for cue in cues:
        chars = sum(options.chars(line) for line in cue.lines)
        if cue.duration <= 0 or chars / cue.duration > options.max_cps + SLACK_CPS:
            return True
    return False


def budget(cues: Sequence[Cue], options: SegmentationOptions) -> int:
    """Characters a sentence's cues can hold at the preset's reading speed (its speaker label excluded)."""
    seconds = sum(max(c.duration, 0.0) for c in cues)
    label = next((c.label for c in cues if c.label), "")
    return char_budget(seconds, options.max_cps, label)


async def condense_fast(
    groups: Sequence[Sequence[Cue]],
    sentences: Sequence[str],
    translations: Sequence[str],
    options: SegmentationOptions,
    source: str,
    target: str,
    translate: Translate,
    *,
    engine: str = "standard",
    terms: Sequence[str] = (),
    bilingual: bool = False,
) -> tuple[list[str], list[str | None]]:
    """Translations with the too-fast ones condensed, and per sentence the full text where it was condensed."""
    out = list(translations)
    full: list[str | None] = [None] * len(out)
    if options.fps is None or not out:
        return out, full
    laid = layout_groups(groups, out, options, bilingual=bilingual)
    todo = [i for i, cues in enumerate(laid) if cues and too_fast(cues, options)][:MAX_CONDENSED]
    if not todo:
        return out, full
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(i: int) -> None:
        limit = budget(laid[i], options)
        if limit >= len(out[i]):
            return  # the text fits the time as a whole: it is the split between cues that reads fast
        request = TranslationRequest(
            (sentences[i],), source, target, context=tuple(sentences[max(0, i - CONTEXT) : i]),
            hints=TranslationHints(mode=engine, max_length=limit), following=tuple(sentences[i + 1 : i + 1 + CONTEXT]),
        )  # fmt: skip
        async with gate:
            try:
                shorter = (await translate(request)).texts[0].strip()
            except Exception as exc:  # condensing is an improvement, never a reason to fail the task
                log.warning("condensing sentence %d failed (%s); keeping the full translation", i, exc)
                return
        if len(shorter) < len(out[i]) and keeps_meaning(out[i], shorter, target, terms):
            full[i], out[i] = out[i], shorter

    await asyncio.gather(*(one(i) for i in todo))
    log.info("reading speed: %d of %d sentences too fast, %d condensed", len(todo), len(out), sum(f is not None for f in full))
    return out, full
