"""A recognized transcript → translated subtitle cues and dubbing lines.

Cues are grouped into sentences, sentences are sent in batches with their
neighbours as context (``standard``), or with wider context, a summary and a
review pass (``professional``), and the translations are laid back onto the
cues. :func:`start_early` begins the ``standard`` batches while recognition is
still running (``early_translation.py``); the final pass reuses every batch it
would have asked for anyway. Sentences still too fast to read after timing are
condensed (``reading_speed.py``) before the final layout.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import cast

from core.specs.video import VideoJobSpec
from engines.asr.types import Transcript
from engines.translation.base import TranslationHints, TranslationRequest, TranslationResult
from engines.translation.glossary import Glossary
from engines.translation.languages import primary
from pipelines.dubbing.lines import DubLine, dub_lines
from pipelines.early_translation import EarlyTranslation
from pipelines.reading_speed import condense_fast
from pipelines.subtitle_layout import Layout
from pipelines.subtitles import (
    Cue,
    ProfanityFilter,
    censor_cues,
    cue_text,
    segment_segments,
    translate_sentences,
)
from pipelines.subtitles.qc import QcReport
from pipelines.subtitles.segment import SegmentLike
from pipelines.subtitles.translation import group_sentences

log = logging.getLogger(__name__)

TRANSLATE_BATCH = 64
CONTEXT_SENTENCES = 2
PROFESSIONAL_CONTEXT = 6

Translate = Callable[[TranslationRequest], Awaitable[TranslationResult]]
Summarize = Callable[[list[str], str], Awaitable[str | None]]
Report = Callable[[float], Awaitable[None]]


@dataclasses.dataclass(frozen=True)
class TranslatedTranscript:
    """Subtitle cues of the translation, and the sentence groups they came from (dubbing speaks those)."""

    cues: list[Cue]
    char_count: int
    lines: list[DubLine]
    #: What a revision renders from (pipelines/transcript_store.py): the source cues of each sentence, the
    #: sentences and their translations (before any profanity filter: the filter is applied at each rendering).
    groups: list[tuple[Cue, ...]] = dataclasses.field(default_factory=list)
    sentences: list[str] = dataclasses.field(default_factory=list)
    translations: list[str] = dataclasses.field(default_factory=list)
    #: Per sentence, the full translation where the shown one was condensed for reading speed, else None.
    full: list[str | None] = dataclasses.field(default_factory=list)
    #: The timed-text quality report of ``cues``.
    qc: QcReport | None = None


def job_glossary(spec: VideoJobSpec, source: str) -> Glossary | None:
    """The task's glossary when it applies to this language pair."""
    glossary = spec.glossary.engine_glossary() if spec.glossary else None
    return glossary if glossary and glossary.applies_to(source, spec.target_lang) else None


def glossary_terms(spec: VideoJobSpec, source: str) -> tuple[str, ...]:
    """The target terms of the task's glossary where it applies: condensing must keep them."""
    glossary = job_glossary(spec, source)
    return tuple(glossary.entries.values()) if glossary is not None else ()


def _groups(layout: Layout, transcript: Transcript) -> list[tuple[Cue, ...]]:
    # ASR segments are frozen, and SegmentLike declares settable attributes: they match it for reading, all it does
    segments = cast("Sequence[SegmentLike]", transcript.segments)
    return group_sentences(segment_segments(segments, layout.source))


def _sentence(group: tuple[Cue, ...]) -> str:
    return " ".join(cue_text(c) for c in group)


def batch_requests(
    sentences: list[str], source: str, spec: VideoJobSpec, hints: TranslationHints
) -> list[tuple[int, TranslationRequest]]:
    """The batches the final pass sends, each with the index of its first sentence."""
    width = CONTEXT_SENTENCES if spec.engine == "standard" else PROFESSIONAL_CONTEXT
    out = []
    for first in range(0, len(sentences), TRANSLATE_BATCH):
        batch = sentences[first : first + TRANSLATE_BATCH]
        before = tuple(sentences[max(0, first - width) : first])
        after = tuple(sentences[first + len(batch) : first + len(batch) + width])
        request = TranslationRequest(tuple(batch), source, spec.target_lang, context=before, hints=hints, following=after)
        out.append((first, request))
    return out


def needs_translation(spec: VideoJobSpec, source: str) -> bool:
    return source != primary(spec.target_lang)


def start_early(spec: VideoJobSpec, layout: Layout, source: str, translate: Translate) -> EarlyTranslation | None:
    """Early translation where its requests equal the final pass's: ``standard``, no speaker labels
    (speaker turns come after recognition and change the cues), and a language to translate into."""
    if spec.engine != "standard" or spec.enable_diarization or not needs_translation(spec, source):
        return None
    hints = TranslationHints(mode=spec.engine)

    def sentences(transcript: Transcript) -> tuple[list[str], list[float]]:
        groups = _groups(layout, transcript)
        return [_sentence(g) for g in groups], [g[-1].end for g in groups]

    return EarlyTranslation(sentences, lambda s: batch_requests(s, source, spec, hints), translate)


async def translate_transcript(
    spec: VideoJobSpec,
    transcript: Transcript,
    source: str,
    translate: Translate,
    report: Report,
    *,
    layout: Layout,
    summarize: Summarize | None = None,
    early: EarlyTranslation | None = None,
) -> TranslatedTranscript:
    groups = _groups(layout, transcript)
    sentences = [_sentence(g) for g in groups]
    translations, full = await translate_groups(
        spec, groups, sentences, source, translate, report, layout=layout, summarize=summarize, early=early
    )
    return lay_out(spec, layout, groups, sentences, translations, source, full)


async def translate_groups(
    spec: VideoJobSpec,
    groups: list[tuple[Cue, ...]],
    sentences: list[str],
    source: str,
    translate: Translate,
    report: Report,
    *,
    layout: Layout,
    summarize: Summarize | None = None,
    early: EarlyTranslation | None = None,
) -> tuple[list[str], list[str | None]]:
    """Each sentence's translation, condensed where it is still too fast to read over its cues, and the full
    translation of each condensed one (None for the others)."""
    translations = await _translate_all(sentences, source, spec, early.translate if early else translate, report, summarize)
    full: list[str | None] = [None] * len(translations)
    if needs_translation(spec, source):
        translations, full = await condense_fast(
            groups, sentences, translations, layout.target, source, spec.target_lang, translate,
            engine=spec.engine, terms=glossary_terms(spec, source), bilingual=spec.bilingual,
        )  # fmt: skip
    return translations, full


def lay_out(
    spec: VideoJobSpec,
    layout: Layout,
    groups: list[tuple[Cue, ...]],
    sentences: list[str],
    translations: list[str],
    source: str,
    full: list[str | None] | None = None,
) -> TranslatedTranscript:
    """Translations laid over their sentences' cues (profanity filter applied), the dubbing lines and the
    quality report."""
    laid_out = translate_sentences(groups, translations, layout.target, bilingual=spec.bilingual, original_options=layout.source)
    spoken = translations
    if spec.profanity_filter:
        laid_out = censor_cues(laid_out, spec.target_lang, source if spec.bilingual else None)
        words = ProfanityFilter(spec.target_lang)
        spoken = [words.censor(t) for t in translations]
    lines = dub_lines(groups, spoken, sentences) if spec.enable_dubbing else []
    return TranslatedTranscript(
        laid_out, sum(len(t) for t in spoken), lines, list(groups), sentences, translations,
        full=list(full) if full is not None else [None] * len(translations), qc=layout.check(laid_out),
    )  # fmt: skip


async def _translate_all(
    sentences: list[str], source: str, spec: VideoJobSpec, translate: Translate, report: Report, summarize: Summarize | None
) -> list[str]:
    """``standard``: the routed engine, with neighbouring sentences as context. ``professional``: the LLM
    with wider context on both sides, a summary of the whole transcript and a review pass (docs/video.md)."""
    if not sentences or not needs_translation(spec, source):
        return sentences
    hints = TranslationHints(mode=spec.engine)
    if spec.engine == "professional" and summarize is not None:
        hints = dataclasses.replace(hints, summary=await _summary(sentences, source, summarize))
    out: list[str] = []
    for _, request in batch_requests(sentences, source, spec, hints):
        out.extend((await translate(request)).texts)
        await report(len(out) / len(sentences))
    return out


async def _summary(sentences: list[str], source: str, summarize: Summarize) -> str | None:
    """The transcript's summary; the translation goes on without one if the LLM cannot give it."""
    try:
        return await summarize(sentences, source)
    except Exception as exc:  # a summary is context, never a reason to fail the job
        log.warning("no transcript summary (%s); translating without it", exc)
        return None
