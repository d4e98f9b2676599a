"""Connects the pipeline to the running service: Serve handles, the file store and quotas → PipelineDeps."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import ApiError, ErrorKind
from core.specs.transcript import read_transcript
from core.specs.video import (
    MAX_VIDEO_BYTES,
    MediaSource,
    SubtitleSource,
    UploadSource,
    UrlSource,
    VideoJobSpec,
    billable_minutes,
    feature_charges,
)
from core.tasks import Task
from engines.asr.audio import SAMPLE_RATE
from engines.asr.types import Transcript
from engines.diarization.base import Diarization
from engines.errors import EngineUnavailable
from engines.media.probe import MediaInfo
from engines.net.fetch import download
from engines.translation.base import TranslationRequest, TranslationResult
from engines.translation.glossary import Glossary
from pipelines.added_targets import charge_targets
from pipelines.chunked_asr import ChunkedAsrOptions, transcribe_long
from pipelines.dubbing.dubber import DubbingDeps
from pipelines.dubbing.line_audio import LineAudio
from pipelines.dubbing.wiring import dubbing_deps
from pipelines.services import WorkerServices
from pipelines.steered_translation import Steering
from pipelines.video_translation import PipelineDeps, Transcribe


def build_deps(services: WorkerServices, task: Task, spec: VideoJobSpec) -> PipelineDeps:
    args = services.args
    asr, translator = services.handles.get("asr"), services.handles.get("translator")
    if asr is None or translator is None or args.asr is None:
        raise EngineUnavailable("video translation needs the ASR and Translator deployments")
    chunking = ChunkedAsrOptions(
        target_chunk_s=args.asr.target_chunk_s, max_chunk_s=args.asr.max_chunk_s, concurrency=args.asr.chunk_concurrency
    )

    async def detect_language(audio: np.ndarray) -> tuple[str, float]:
        result: tuple[str, float] = await asr.detect_language.remote(audio)
        return result

    async def translate(request: TranslationRequest, glossary: Glossary | None) -> TranslationResult:
        result: TranslationResult = await translator.translate.remote(request, glossary)
        return result

    steering = Steering(spec.context, tuple(spec.instructions), spec.memory_id, services.memories)

    async def summarize(sentences: list[str], language: str) -> str | None:
        summary: str | None = await translator.summarize.remote(sentences, language)
        return summary

    async def pairs() -> frozenset[tuple[str, str]]:
        return (await translator.capabilities.remote()).translation_pairs

    return PipelineDeps(
        _obtainer(services),
        _admitter(services, task, spec),
        detect_language,
        _transcriber(asr, chunking),
        steering.wrap(translate),
        pairs,
        _publisher(services, task),
        timeout_s=args.worker.step_timeout_s,
        summarize=summarize,
        diarize=_diarize(services),
        dubbing=_with_line_audio(dubbing_deps(services), services, task, spec),
        load_transcript=lambda task_id: read_transcript(services.files, task_id),
        memory_report=steering.report,
    )


def _obtainer(services: WorkerServices) -> Callable[[MediaSource, Path], Awaitable[Path]]:
    """Puts the video in the run's folder: an upload from the file store, a URL downloaded under the URL policy."""

    async def obtain(source: MediaSource, workdir: Path) -> Path:
        dest = workdir / "source"
        if isinstance(source, UploadSource | SubtitleSource):
            return await services.files.fetch(source.key, dest)
        await download(
            source.url,
            dest,
            policy=services.url_policy,
            max_bytes=MAX_VIDEO_BYTES,
            timeout_s=services.args.worker.fetch_timeout_s,
        )
        return dest

    return obtain


def _admitter(services: WorkerServices, task: Task, spec: VideoJobSpec) -> Callable[[MediaInfo], Awaitable[None]]:
    async def admit(info: MediaInfo) -> None:
        """A fetched URL's minutes and feature extras, and those of the languages held for it, are charged once its
        duration is known (uploads paid at submission)."""
        if not isinstance(spec.source, UrlSource):
            return
        account = await services.accounts.get(task.account_id)
        if account is None:
            raise ApiError(ErrorKind.FORBIDDEN, "The account of this task no longer exists.")
        charges = [("video_minutes", billable_minutes(info.duration)), *feature_charges(spec, info.duration)]
        for metric, amount in charges:
            await services.quotas.consume_once(account, metric, amount, charge_id=task.task_id)
        await charge_targets(services, account, spec, info.duration)

    return admit


def _transcriber(asr: Any, chunking: ChunkedAsrOptions) -> Transcribe:
    """Speech to text on the ASR deployment: one call for a short audio, else chunks in parallel (Ray Data)."""

    async def transcribe(
        audio: np.ndarray,
        language: str,
        offset: float,
        report: Callable[[float], None],
        *,
        on_prefix: Callable[[Transcript, float], None] | None = None,
    ) -> Transcript:
        if len(audio) <= chunking.max_chunk_s * SAMPLE_RATE:  # one chunk: nothing to parallelise
            transcript: Transcript = await asr.transcribe.remote(audio, language, offset)
            return transcript
        loop = asyncio.get_running_loop()

        def prefix(part: Transcript, until: float) -> None:  # from the Ray Data thread onto the loop
            if on_prefix is not None:
                loop.call_soon_threadsafe(on_prefix, part, until)

        return await asyncio.to_thread(
            transcribe_long,
            audio,
            language=language,
            offset=offset,
            options=chunking,
            on_chunk=lambda done, total: report(done / total),
            on_prefix=prefix,
        )

    return transcribe


def _publisher(services: WorkerServices, task: Task) -> Callable[[Path, str, str], Awaitable[str]]:
    """Stores an output in the task's folder, counts it in the account's storage, and answers its signed URL."""

    async def publish(path: Path, name: str, content_type: str) -> str:
        stored = await services.files.put(task.task_id, name, path, content_type, consume=True)  # workdir is discarded
        await services.tasks.record_output(task.account_id, stored.key, stored.size)
        return services.files.url(stored.key, services.files.expires_for(time.time()))

    return publish


def _with_line_audio(deps: DubbingDeps | None, services: WorkerServices, task: Task, spec: VideoJobSpec) -> DubbingDeps | None:
    """Spoken lines kept in the folder of the task that recognized the video (its revisions and added languages
    share them)."""
    if deps is None:
        return None
    origin = spec.revision or spec.translation_of
    folder = origin.root_task_id if origin is not None else task.task_id

    async def record(key: str, size: int) -> None:
        await services.tasks.record_output(task.account_id, key, size)

    return dataclasses.replace(deps, line_audio=LineAudio(services.files, folder, record))


def _diarize(services: WorkerServices) -> Callable[..., Awaitable[Diarization]] | None:
    diarizer = services.handles.get("diarizer")
    if diarizer is None:
        return None

    async def diarize(audio: np.ndarray, speakers: int | None, offset: float, report: Callable[[float], None]) -> Diarization:
        result: Diarization | None = None
        async for item in diarizer.options(stream=True).diarize_stream.remote(audio, speakers, offset):
            if "progress" in item:
                report(float(item["progress"]))
            else:
                result = item["diarization"]
        if result is None:
            raise EngineUnavailable("the diarizer ended without a result")
        return result

    return diarize
