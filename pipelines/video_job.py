"""The ``video`` job handler: a stored :class:`~core.specs.video.VideoJobSpec` through the pipeline."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from core import metrics
from core.errors import ErrorGroup
from core.specs.video import SubtitleSource, VideoJobSpec
from core.tasks import Task
from core.tasks.store import TRANSIENT
from pipelines.added_targets import fail_targets, release_targets
from pipelines.job_runner import JobContext
from pipelines.outcome import Done, Outcome
from pipelines.progress import Progress
from pipelines.services import WorkerServices
from pipelines.subtitle_translation import translate_subtitles
from pipelines.video_language import add_language
from pipelines.video_revision import revise_video
from pipelines.video_translation import PipelineDeps, translate_video
from pipelines.wiring import build_deps

Pipeline = Callable[[VideoJobSpec, PipelineDeps, Progress, Path], Awaitable[dict[str, Any]]]

log = logging.getLogger("mediatrans.worker")

DepsFactory = Callable[[WorkerServices, Task, VideoJobSpec], PipelineDeps]


class VideoJobHandler:
    """Runs video translation tasks (contract 4.1), their revisions and added languages, with progress in the
    contract's stages."""

    error_group = ErrorGroup.VIDEO
    first_stage = "validating"

    def __init__(self, deps_factory: DepsFactory = build_deps) -> None:
        self.deps_factory = deps_factory

    async def run(self, task: Task, ctx: JobContext) -> Outcome:
        spec = VideoJobSpec.model_validate(task.params)
        stored = not spec.recognizes  # a revision or an added language renders a stored transcript
        progress = Progress(
            ctx.report, diarization=spec.enable_diarization, revision=stored, initial_estimate_s=task.estimated_seconds or 60
        )
        started = time.monotonic()
        run = _pipeline(spec)
        deps = self.deps_factory(ctx.services, task, spec)
        result = await run(spec, deps, progress, ctx.workdir)
        memory = deps.memory_report() if deps.memory_report is not None else None
        if memory is not None:
            result["memory"] = memory
        await release_targets(ctx.services, spec)  # the transcript they translate is stored
        elapsed = time.monotonic() - started
        timings = progress.timings()
        log.info("task %s completed in %.1f s; stages %s", task.task_id, elapsed, timings)
        metrics.stage_durations(timings)
        if spec.revision is not None:  # a revision's speed says nothing about recognizing a video
            return Done(result)
        try:
            await ctx.services.speed.record(spec.speed_kind, elapsed, float(result.get("duration") or 0))
        except TRANSIENT as exc:  # an estimate is not worth failing a finished task
            log.warning("speed of task %s not recorded: %s", task.task_id, exc)
        return Done(result)

    async def on_failed(self, task: Task, services: WorkerServices) -> None:
        """The languages held for this task's recognition fail with it."""
        await fail_targets(services, task)


def _pipeline(spec: VideoJobSpec) -> Pipeline:
    """Which pipeline runs the task: a revision, an added language, a subtitle file, or a video to recognize."""
    if spec.revision is not None:
        return revise_video
    if spec.translation_of is not None:
        return add_language
    if isinstance(spec.source, SubtitleSource) or spec.subtitles is not None:
        return translate_subtitles
    return translate_video
