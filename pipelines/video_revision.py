"""A revision of a video task: its parent's stored transcript, edited, rendered again (docs/video-revisions.md).

No recognition and no diarization: the edits (``VideoJobSpec.revision``, checked when the revision was
submitted) are applied here, the one place an edited transcript is built (``core.specs.transcript.apply_edits``),
to the parent's segments; a segment whose source changed is translated again (the task's glossary applied,
its neighbours as context) unless the edit gives its translation; subtitles are laid out by the usual
rules; a dub is spoken again from the parent's voices. The source video is fetched only to burn or dub.
The revision stores its own transcript, so it can be revised in turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.specs.transcript import InvalidEdit, StoredTranscript, apply_edits
from core.specs.video import VideoJobSpec
from engines.errors import InvalidInput
from engines.translation.base import TranslationHints, TranslationRequest, TranslationResult
from pipelines.progress import Progress
from pipelines.subtitle_layout import layout_of
from pipelines.transcript_render import Lineage, Translated, render_transcript
from pipelines.transcript_store import groups_of
from pipelines.transcript_translation import CONTEXT_SENTENCES, job_glossary
from pipelines.video_translation import PipelineDeps

GONE = "the task's stored transcript is no longer kept (revisions are possible while its outputs are)"


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

    relayout = {sid for sid, changed in changes.items() if changed & {"source", "times"}}
    relabel = any("speaker" in changed for changed in changes.values())
    layout = layout_of(
        spec, edited.source_lang, edited.target_lang, speaker_labels=edited.speaker_labels,
        fps=edited.timing.fps, shot_changes=edited.timing.shot_changes, until=edited.span[1],
    )  # fmt: skip
    groups = groups_of(edited, relayout, layout.source, relabel=relabel)
    full = [s.full_translation if t == s.translation else None for s, t in zip(edited.segments, translations)]
    lineage = Lineage(revision.root_task_id, revision.parent_task_id, revision.number)
    return await render_transcript(spec, Translated(edited, groups, translations, full), layout, lineage, deps, progress, workdir)


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
