"""A stored transcript with its translations, rendered: the outputs, the dub and the new stored transcript.

What a revision (``video_revision.py``) and an added language (``video_language.py``) share once they know
each segment's translation: the translations are laid over the segments' cues, the video is fetched again
only to burn or dub, a dub speaks the lines in the transcript's speakers' voices, and the task stores its
own transcript (so it can be revised in turn) and answers the result object of any video task.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from core.files.base import FileStoreError
from core.specs.transcript import StoredTranscript
from core.specs.video import UploadSource, VideoJobSpec
from engines.errors import EngineUnavailable, InvalidInput
from engines.media.probe import probe
from engines.translation.base import TranslationRequest, TranslationResult
from pipelines.dubbing.dubber import DubRequest, dub
from pipelines.progress import Progress
from pipelines.subtitle_layout import Layout
from pipelines.subtitles import Cue
from pipelines.transcript_store import dubbing_by_segment, speakers_of, to_stored
from pipelines.transcript_translation import TranslatedTranscript, job_glossary, lay_out, translate_groups
from pipelines.video_outputs import add_dub, publish_outputs, render_outputs
from pipelines.video_translation import PipelineDeps, stage_reporter, store_transcript

SOURCE_GONE = "the task's uploaded video is no longer kept: only subtitle files can be rendered again"


@dataclasses.dataclass(frozen=True)
class Lineage:
    """Where the rendered task's transcript comes from: the task that recognized the video, the parent, and
    the revision number (0 for an added language, which starts a chain of its own). A subtitle file's task
    has neither root nor parent: it is the first of its chain."""

    root_task_id: str | None = None
    parent_task_id: str | None = None
    revision: int = 0


@dataclasses.dataclass(frozen=True)
class Translated:
    """Each segment of ``transcript`` with its source cues, translation and full (uncondensed) translation."""

    transcript: StoredTranscript
    groups: list[tuple[Cue, ...]]
    translations: list[str]
    full: list[str | None]


async def translate_stored(
    spec: VideoJobSpec,
    transcript: StoredTranscript,
    groups: list[tuple[Cue, ...]],
    layout: Layout,
    deps: PipelineDeps,
    progress: Progress,
) -> Translated:
    """Every segment of ``transcript`` translated into the task's language as a recognized video's sentences are
    (``transcript_translation.translate_groups``, the task's glossary); runs the ``translating`` stage."""
    await progress.enter("translating")
    source = transcript.source_lang
    glossary = job_glossary(spec, source)

    async def translate(request: TranslationRequest) -> TranslationResult:
        return await deps.translate(request, glossary)

    async def report(fraction: float) -> None:
        await progress.update("translating", fraction)

    sentences = [segment.source for segment in transcript.segments]
    translations, full = await translate_groups(
        spec, groups, sentences, source, translate, report, layout=layout, summarize=deps.summarize
    )
    return Translated(transcript, groups, translations, full)


async def render_transcript(
    spec: VideoJobSpec,
    translated: Translated,
    layout: Layout,
    lineage: Lineage,
    deps: PipelineDeps,
    progress: Progress,
    workdir: Path,
    media: Path | None = None,
) -> dict[str, Any]:
    """Lay out, dub, render, store and publish; returns the task ``result`` object. Runs the ``synthesizing``
    and ``packaging`` stages. ``media`` is the video when the caller has it (else it is fetched to burn or dub)."""
    await progress.enter("synthesizing")
    transcript, groups = translated.transcript, translated.groups
    sentences = [segment.source for segment in transcript.segments]
    laid = lay_out(spec, layout, groups, sentences, translated.translations, transcript.source_lang, translated.full)
    if media is None and (spec.burns or spec.enable_dubbing):
        media = await _source(spec, deps, workdir)
    dubbed = None
    if spec.enable_dubbing and media is not None:
        dubbed = await _dub(spec, transcript, laid, media, workdir, deps, progress)
    outputs = await render_outputs(spec, laid.cues, transcript.size, dubbed[0] if dubbed else media, workdir, deps,
                                   transcript.duration)  # fmt: skip
    add_dub(spec, outputs, dubbed, workdir)

    await progress.enter("packaging")
    stored = to_stored(
        groups, sentences, translated.translations, speakers_of(transcript),
        dubbing_by_segment(groups, dubbed[1]) if dubbed is not None else None,
        ids=[s.id for s in transcript.segments], root_task_id=lineage.root_task_id,
        parent_task_id=lineage.parent_task_id, revision=lineage.revision, source_lang=transcript.source_lang,
        target_lang=spec.target_lang, duration=transcript.duration, span=transcript.span, size=transcript.size,
        speaker_labels=transcript.speaker_labels, full=translated.full, words=[s.words for s in transcript.segments],
        timing=transcript.timing, qc=laid.qc,
    )  # fmt: skip
    await store_transcript(stored, workdir, deps)
    result = {
        **await publish_outputs(spec, outputs, deps),
        "duration": round(transcript.duration, 3),
        "char_count": laid.char_count,
        "source_lang": transcript.source_lang,
    }
    if laid.qc is not None:
        result["qc"] = laid.qc.summary()
    if spec.enable_diarization:
        names = {s.speaker for s in transcript.segments if s.speaker}
        result["speakers"] = [
            {"speaker": s["name"], "seconds": s.get("seconds"), "gender": s.get("gender")}
            for s in transcript.speakers
            if s["name"] in names
        ]
    return result


async def _source(spec: VideoJobSpec, deps: PipelineDeps, workdir: Path) -> Path:
    """The video again, to burn or dub: a kept upload, or the ``video_url`` fetched again."""
    try:
        return await deps.obtain(spec.source, workdir)
    except (FileNotFoundError, FileStoreError) as exc:
        raise InvalidInput(SOURCE_GONE) from exc


async def _dub(
    spec: VideoJobSpec,
    transcript: StoredTranscript,
    laid: TranslatedTranscript,
    media: Path,
    workdir: Path,
    deps: PipelineDeps,
    progress: Progress,
) -> tuple[Path, dict[str, Any]]:
    if deps.dubbing is None:
        raise EngineUnavailable("AI dubbing needs the TTS deployment, which is not deployed on this service")
    hint = spec.source.filename if isinstance(spec.source, UploadSource) else None
    info = await asyncio.to_thread(probe, media, filename_hint=hint)
    start, end = transcript.span
    request = DubRequest(
        voice=spec.dubbing_voice, speed=spec.dubbing_speed, bg_music=spec.dubbing_bg_music, target_lang=spec.target_lang,
        source_lang=transcript.source_lang, start=start, end=min(end, info.duration), engine=spec.engine,
    )  # fmt: skip
    glossary = job_glossary(spec, transcript.source_lang)

    async def translate(request: TranslationRequest) -> TranslationResult:
        return await deps.translate(request, glossary)

    speakers = speakers_of(transcript)
    reporter = stage_reporter(progress, "synthesizing")
    return await dub(request, laid.lines, speakers, media, workdir, deps.dubbing, translate, reporter, deps.timeout_s)
