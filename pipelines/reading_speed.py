"""Reading speed: translations too long for the time they are shown are condensed (docs/timed-text.md).

After the translation is laid out and timed, a sentence whose cues still read faster than the preset's
characters per second (all the time its speech and the timing rules allow is already used) is rewritten
by the translating engine under a length budget: the characters that time holds at that speed, or the
share of the text its fastest cue says is too much, whichever is smaller, less a 10 % margin. The shorter translation is
kept only when it is shorter and keeps what matters (``subtitles.condense.keeps_meaning``: numbers,
negations, names, glossary terms); otherwise the full one stays and the cue is reported as too fast.
Only engines that follow a length budget (the LLM) can condense; the others answer at full length, which
is refused as not shorter.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence

from engines.translation.base import TranslationHints, TranslationRequest, TranslationResult
from pipelines.subtitles.condense import char_budget, reasons
from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.qc import CPS_TOLERANCE, reading_speed
from pipelines.subtitles.text import ending
from pipelines.subtitles.translation import layout_groups
from pipelines.subtitles.types import Cue

log = logging.getLogger(__name__)

#: Most sentences one task condenses, and how many requests run at once.
MAX_CONDENSED = 400
CONCURRENCY = 4
CONTEXT = 2
#: Rounds of asking: a sentence still too fast after its first rewrite is asked once more, from that rewrite
#: (a refused rewrite is not asked again: the model answers the same text the same way).
ROUNDS = 2
#: The budget asked for, as a share of what the time holds: room for how the text splits between cues.
MARGIN = 0.9

Translate = Callable[[TranslationRequest], Awaitable[TranslationResult]]


def closing_stop(full: str, shorter: str) -> str:
    """``shorter`` ending with the full sentence's closing mark when the rewrite dropped it (``Très bien.``)."""
    mark = ending(full)
    if shorter and mark in ".!?…。！？" and ending(shorter) not in ".!?…。！？" and shorter[-1] not in "\"'»”」":
        return shorter + mark
    return shorter


def cps(cue: Cue, options: SegmentationOptions) -> float:
    """A cue's reading speed, counted as the quality report counts it."""
    return reading_speed(sum(options.chars(line) for line in cue.lines), cue.duration)


def too_fast(cues: Sequence[Cue], options: SegmentationOptions) -> bool:
    """Whether any of a sentence's cues breaks the report's ``reading_speed`` rule."""
    return any(cps(cue, options) > options.max_cps + CPS_TOLERANCE for cue in cues)


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
    job = _Condensing(list(sentences), list(translations), options, source, target, translate, engine, tuple(terms))
    if options.fps is None or not job.out:
        return job.out, job.full
    asked = 0
    for _ in range(ROUNDS):
        laid = layout_groups(groups, job.out, options, bilingual=bilingual)
        todo = [i for i, cues in enumerate(laid) if cues and i not in job.refused and too_fast(cues, options)]
        todo = todo[: MAX_CONDENSED - asked]
        if not todo:
            break
        asked += len(todo)
        await asyncio.gather(*(job.condense(i, laid[i]) for i in todo))
    done = sum(f is not None for f in job.full)
    log.info("reading speed: %d of %d sentences condensed (%d requests)", done, len(job.out), asked)
    return job.out, job.full


@dataclasses.dataclass
class _Condensing:
    """One task's condensing: the current texts (``out``) and the full ones of condensed sentences (``full``)."""

    sentences: list[str]
    out: list[str]
    options: SegmentationOptions
    source: str
    target: str
    translate: Translate
    engine: str
    terms: tuple[str, ...]
    full: list[str | None] = dataclasses.field(default_factory=list)
    #: Sentences whose rewrite was refused: asking again from the same text gets the same answer.
    refused: set[int] = dataclasses.field(default_factory=set)
    gate: asyncio.Semaphore = dataclasses.field(default_factory=lambda: asyncio.Semaphore(CONCURRENCY))

    def __post_init__(self) -> None:
        self.full = [None] * len(self.out)

    async def condense(self, i: int, cues: Sequence[Cue]) -> None:
        """Ask for sentence ``i`` shorter; keep the answer if it is shorter and keeps what matters."""
        current = self.out[i]
        slowest = self.options.max_cps / max(cps(cue, self.options) for cue in cues)
        limit = int(min(budget(cues, self.options), len(current) * slowest) * MARGIN)
        if limit >= len(current):
            return
        hints = TranslationHints(mode=self.engine, max_length=max(limit, 1), draft=current)
        context = tuple(self.sentences[max(0, i - CONTEXT) : i])
        following = tuple(self.sentences[i + 1 : i + 1 + CONTEXT])
        request = TranslationRequest((self.sentences[i],), self.source, self.target, context, hints, following)
        async with self.gate:
            try:
                shorter = closing_stop(current, (await self.translate(request)).texts[0].strip())
            except Exception as exc:  # condensing is an improvement, never a reason to fail the task
                log.warning("condensing sentence %d failed (%s); keeping its translation", i, exc)
                self.refused.add(i)
                return
        refused = reasons(current, shorter, self.target, self.terms) if len(shorter) < len(current) else ["not shorter"]
        if refused:
            log.debug("condensed sentence %d refused: %s", i, "; ".join(refused))
            self.refused.add(i)
            return
        if self.full[i] is None:
            self.full[i] = current
        self.out[i] = shorter
