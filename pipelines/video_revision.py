"""A revision of a video task: its parent's stored transcript, edited, rendered again (docs/video-revisions.md).

No recognition and no diarization: the edits (``VideoJobSpec.revision``, checked when the revision was
submitted) are applied here, the one place an edited transcript is built (``core.specs.transcript.apply_edits``),
to the parent's segments; a segment whose source changed is translated again (the task's glossary applied,
its neighbours as context) unless the edit gives its translation; subtitles are laid out by the usual
rules; a dub is spoken again from the parent's voices. The source video is fetched only to burn or dub.
The revision stores its own transcript, so it can be revised in turn.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from core.files.base import FileStoreError
from core.specs.transcript import InvalidEdit, StoredTranscript, apply_edits
from core.specs.video import UploadSource, VideoJobSpec
from engines.errors import EngineUnavailable, InvalidInput
from engines.media.probe import probe
from engines.translation.base import TranslationHints, TranslationRequest, TranslationResult
from pipelines.dubbing.dubber import DubRequest, dub
from pipelines.progress import Progress
from pipelines.subtitle_layout import layout_of
from pipelines.transcript_store import dubbing_by_segment, groups_of, speakers_of, to_stored
from pipelines.transcript_translation import CONTEXT_SENTENCES, job_glossary, lay_out
from pipelines.video_outputs import add_dub, publish_outputs, render_outputs
from pipelines.video_translation import PipelineDeps, stage_reporter, store_transcript

GONE = "the task's stored transcript is no longer kept (revisions are possible while its outputs are)"
SOURCE_GONE = "the task's uploaded video is no longer kept: only subtitle files can be rendered again"


async def revise_video(spec: VideoJobSpec, deps: PipelineDeps, progress: Progress, workdir: Path) -> dict[str, Any]:
    """Run a revision; returns the task ``result`` object (the shape of any video task's)."""
    revision = spec.revision
    if revision is None:
        raise ValueError("revise_video runs revisions only (VideoJobSpec.revision is None)")
    await progress.enter("validating")
    parent = await deps.load_transcript(revision.parent_task_id) if deps.load_transcript is not None else None
    if parent is None:
        raise InvalidInput(GONE)
    try:
        edited, changes = apply_edits(parent, revision.edits)
    except InvalidEdit as exc:
        raise InvalidInput(str(exc)) from exc

    await progress.enter("translating")
    translations = await _translations(spec, edited, changes, deps, progress)

    await progress.enter("synthesizing")
    relayout = {sid for sid, changed in changes.items() if changed & {"source", "times"}}
    relabel = any("speaker" in changed for changed in changes.values())
    layout = layout_of(
        spec, edited.source_lang, edited.target_lang, speaker_labels=edited.speaker_labels,
        fps=edited.timing.fps, shot_changes=edited.timing.shot_changes, until=edited.span[1],
    )  # fmt: skip
    groups = groups_of(edited, relayout, layout.source, relabel=relabel)
    sentences = [segment.source for segment in edited.segments]
    full = [s.full_translation if t == s.translation else None for s, t in zip(edited.segments, translations)]
    laid = lay_out(spec, layout, groups, sentences, translations, edited.source_lang, full)
    media = await _source(spec, deps, workdir) if spec.burns or spec.enable_dubbing else None
    dubbed = None
    if spec.enable_dubbing and media is not None:
        dubbed = await _dub(spec, edited, laid.lines, media, workdir, deps, progress)
    media_path = dubbed[0] if dubbed else media
    outputs = await render_outputs(spec, laid.cues, edited.size, media_path, workdir, deps, edited.duration)
    add_dub(spec, outputs, dubbed, workdir)

    await progress.enter("packaging")
    stored = to_stored(
        groups, sentences, translations, speakers_of(edited),
        dubbing_by_segment(groups, dubbed[1]) if dubbed is not None else None,
        ids=[s.id for s in edited.segments], root_task_id=revision.root_task_id,
        parent_task_id=revision.parent_task_id, revision=revision.number, source_lang=edited.source_lang,
        target_lang=edited.target_lang, duration=edited.duration, span=edited.span, size=edited.size,
        speaker_labels=edited.speaker_labels, full=full, words=[s.words for s in edited.segments],
        timing=edited.timing, qc=laid.qc,
    )  # fmt: skip
    await store_transcript(stored, workdir, deps)
    result = {
        **await publish_outputs(spec, outputs, deps),
        "duration": round(edited.duration, 3),
        "char_count": laid.char_count,
        "source_lang": edited.source_lang,
    }
    if laid.qc is not None:
        result["qc"] = laid.qc.summary()
    if spec.enable_diarization:
        names = {s.speaker for s in edited.segments if s.speaker}
        result["speakers"] = [
            {"speaker": s["name"], "seconds": s.get("seconds"), "gender": s.get("gender")}
            for s in edited.speakers
            if s["name"] in names
        ]
    return result


async def _source(spec: VideoJobSpec, deps: PipelineDeps, workdir: Path) -> Path:
    """The video again, to burn or dub: a kept upload, or the ``video_url`` fetched again."""
    try:
        return await deps.obtain(spec.source, workdir)
    except (FileNotFoundError, FileStoreError) as exc:
        raise InvalidInput(SOURCE_GONE) from exc


async def _translations(
    spec: VideoJobSpec, transcript: StoredTranscript, changes: dict[str, set[str]], deps: PipelineDeps, progress: Progress
) -> list[str]:
    """Each segment's translation: as edited, as before, or translated again where only the source changed."""
    segments = transcript.segments
    again = [i for i, s in enumerate(segments) if changes.get(s.id, set()) & {"source", "translation"} == {"source"}]
    translations = [s.translation for s in segments]
    if not again or transcript.source_lang == transcript.target_lang.split("-")[0]:
        for i in again:  # nothing to translate into: the text is its own translation
            translations[i] = segments[i].source
        return translations
    glossary = job_glossary(spec, transcript.source_lang)
    hints = TranslationHints(mode=spec.engine)
    for done, i in enumerate(again):
        before = tuple(s.source for s in segments[max(0, i - CONTEXT_SENTENCES) : i])
        after = tuple(s.source for s in segments[i + 1 : i + 1 + CONTEXT_SENTENCES])
        request = TranslationRequest(
            (segments[i].source,), transcript.source_lang, spec.target_lang, context=before, hints=hints, following=after
        )
        result: TranslationResult = await deps.translate(request, glossary)
        translations[i] = result.texts[0]
        await progress.update("translating", (done + 1) / len(again))
    return translations


async def _dub(
    spec: VideoJobSpec,
    transcript: StoredTranscript,
    lines: list[Any],
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
    return await dub(request, lines, speakers, media, workdir, deps.dubbing, translate, reporter, deps.timeout_s)
