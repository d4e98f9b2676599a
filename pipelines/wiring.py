"""Connects the pipeline to the running service: stored params → VideoParams, handles → PipelineDeps."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from deployments.engines.asr.audio import SAMPLE_RATE
from deployments.engines.asr.types import Transcript
from deployments.engines.errors import EngineUnavailable
from deployments.engines.net.fetch import download
from deployments.engines.net.urls import UrlPolicy
from deployments.engines.translation.base import TranslationRequest, TranslationResult
from deployments.engines.translation.glossary import Glossary
from pipelines.chunked_asr import ChunkedAsrOptions, transcribe_long
from pipelines.subtitles import SubtitleStyle
from pipelines.video_translation import PipelineDeps, VideoParams
from serve_app.files import FileStore, LocalFileStore
from serve_app.tasks import Task
from serve_app.worker_services import WorkerServices

MAX_SOURCE_BYTES = 500 * 1024 * 1024


def build_params(stored: dict[str, Any]) -> VideoParams:
    """The pipeline's view of a task's stored (already validated) parameters."""
    glossary = stored.get("glossary")
    return VideoParams(
        target_lang=stored["target_lang"],
        source_lang=stored.get("source_lang"),
        output_format=stored.get("output_format", "srt"),
        bilingual=bool(stored.get("bilingual")),
        engine=stored.get("engine", "standard"),
        glossary=Glossary(
            glossary["source_lang"],
            glossary["target_lang"],
            {e["source"]: e["target"] for e in glossary["entries"]},
            glossary["case_sensitive"],
        )
        if glossary
        else None,
        style=SubtitleStyle(
            font=stored.get("subtitle_font", "PingFang SC"),
            size=int(stored.get("subtitle_size", 24)),
            color=stored.get("subtitle_color", "#FFFFFF"),
            outline=stored.get("subtitle_outline", "#000000"),
            outline_width=float(stored.get("subtitle_outline_width", 2.0)),
            background=None if stored.get("subtitle_bg", "none") == "none" else stored["subtitle_bg"],
            position=stored.get("subtitle_position", "bottom"),
        ),
        max_subtitle_length=int(stored.get("max_subtitle_length", 42)),
        subtitle_max_duration=float(stored.get("subtitle_max_duration", 5.0)),
        profanity_filter=bool(stored.get("profanity_filter")),
        start_time=float(stored.get("start_time") or 0.0),
        end_time=stored.get("end_time"),
    )


def build_deps(services: WorkerServices, task: Task) -> PipelineDeps:
    args = services.args
    asr, translator = services.handles.get("asr"), services.handles.get("translator")
    if asr is None or translator is None:
        raise EngineUnavailable("video translation needs the ASR and Translator deployments")
    chunking = ChunkedAsrOptions(
        target_chunk_s=args.asr.target_chunk_s if args.asr else 120.0,
        max_chunk_s=args.asr.max_chunk_s if args.asr else 150.0,
        concurrency=args.asr.chunk_concurrency if args.asr else 2,
    )

    async def obtain(source: dict[str, Any], workdir: Path) -> Path:
        if source["kind"] == "upload":
            return await _stored_source(services.files, source["key"], workdir)
        dest = workdir / "source"
        await download(
            source["url"], dest, policy=services.url_policy, max_bytes=MAX_SOURCE_BYTES, timeout_s=args.worker.fetch_timeout_s
        )
        return dest

    async def detect_language(audio: np.ndarray) -> tuple[str, float]:
        result: tuple[str, float] = await asr.detect_language.remote(audio)
        return result

    async def transcribe(audio: np.ndarray, language: str, offset: float, report: Callable[[float], None]) -> Transcript:
        if len(audio) <= chunking.max_chunk_s * SAMPLE_RATE:  # one chunk: nothing to parallelise
            transcript: Transcript = await asr.transcribe.remote(audio, language, offset)
            return transcript
        return await asyncio.to_thread(
            transcribe_long,
            audio,
            language=language,
            offset=offset,
            options=chunking,
            on_chunk=lambda done, total: report(done / total),
        )

    async def translate(request: TranslationRequest, glossary: Glossary | None) -> TranslationResult:
        result: TranslationResult = await translator.translate.remote(request, glossary)
        return result

    async def pairs() -> frozenset[tuple[str, str]]:
        return (await translator.capabilities.remote()).translation_pairs

    async def publish(path: Path, name: str, content_type: str) -> str:
        stored = await services.files.put(task.task_id, name, path, content_type, consume=True)  # workdir is discarded
        return services.files.url(stored.key, services.files.expires_for(time.time()))

    return PipelineDeps(obtain, detect_language, transcribe, translate, pairs, publish, timeout_s=args.worker.step_timeout_s)


async def _stored_source(files: FileStore, key: str, workdir: Path) -> Path:
    if isinstance(files, LocalFileStore):
        return files.open_path(key)
    dest = workdir / "source"
    url = files.url(key, time.time() + 3600)
    # Our own bucket: trusted even when it sits on a private network.
    await download(url, dest, policy=UrlPolicy(allow_private=True), max_bytes=MAX_SOURCE_BYTES, timeout_s=3600)
    return dest
