"""An added language of a video task: its parent's stored transcript translated into another language and rendered.

No extraction, recognition or diarization (docs/video-languages.md): the parent's segments are taken as
they are (ids, source text, source cues, times, speakers and words), translated into the task's target
as a recognized video's sentences are (batches with their neighbours as context, the summary and review
pass of ``engine=professional``, the task's glossary, condensing where a line is too fast to read), then
rendered as a revision is (``transcript_render``). The video is fetched again only to burn or dub.
The task stores its own transcript, so it can be revised, and have languages added, in turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.specs.video import VideoJobSpec
from engines.errors import InvalidInput
from pipelines.progress import Progress
from pipelines.subtitle_layout import layout_of
from pipelines.transcript_render import Lineage, render_transcript, translate_stored
from pipelines.transcript_store import groups_of
from pipelines.video_translation import PipelineDeps, check_pair

GONE = "the parent task's stored transcript is no longer kept (languages can be added while its outputs are)"


async def add_language(spec: VideoJobSpec, deps: PipelineDeps, progress: Progress, workdir: Path) -> dict[str, Any]:
    """Run an added language; returns the task ``result`` object (the shape of any video task's)."""
    origin = spec.translation_of
    if origin is None:
        raise ValueError("add_language runs added languages only (VideoJobSpec.translation_of is None)")
    await progress.enter("validating")
    parent = await deps.load_transcript(origin.parent_task_id) if deps.load_transcript is not None else None
    if parent is None:
        raise InvalidInput(GONE)
    source = parent.source_lang
    await check_pair(deps, source, spec.target_lang)
    layout = layout_of(
        spec, source, spec.target_lang, speaker_labels=parent.speaker_labels,
        fps=parent.timing.fps, shot_changes=parent.timing.shot_changes, until=parent.span[1],
    )  # fmt: skip
    groups = groups_of(parent, set(), layout.source)  # the parent's source cues, as they are

    translated = await translate_stored(spec, parent, groups, layout, deps, progress)
    lineage = Lineage(origin.root_task_id, origin.parent_task_id, 0)
    return await render_transcript(spec, translated, layout, lineage, deps, progress, workdir)
