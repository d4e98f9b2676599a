"""Endpoint groups of the asyncio :class:`~mediatrans_client.AsyncClient` (same arguments as the blocking ones)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mediatrans_client import _endpoints as ep
from mediatrans_client._async_text_resources import AsyncGame, AsyncGrammar, AsyncSpeech  # noqa: F401  (re-exported)
from mediatrans_client._chunks import abody_chunks, awrite_chunks
from mediatrans_client._fields import (
    ADD_LANGUAGE_FIELDS,
    REVISION_FIELDS,
    SUBTITLE_FIELDS,
    VIDEO_FIELDS,
    VOICE_CLONE_FIELDS,
    request_fields,
    segment_edits,
)
from mediatrans_client._progress import ProgressCallback, ProgressReporter, task_failure
from mediatrans_client._sync_resources import DEFAULT_POLL_INTERVAL_S, carry_additional_tasks
from mediatrans_client._transport import AsyncTransport
from mediatrans_client.errors import WaitTimeoutError
from mediatrans_client.models import (
    SegmentEdit,
    Task,
    Transcript,
    Voice,
    VoiceList,
)
from mediatrans_client.types import (
    DubbingVoice,
    Engine,
    OutputFormat,
    SubtitleFormat,
    SubtitlePosition,
    SubtitlePreset,
    VoiceGender,
)


class AsyncVideo:
    """Video translation tasks: submit, poll, wait, download, transcript, revise, add a language (see the blocking ``Video``)."""

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def translate(
        self,
        path_or_url: ep.PathOrUrl,
        *,
        target_lang: str,
        source_lang: str | None = None,
        output_format: OutputFormat | None = None,
        bilingual: bool | None = None,
        engine: Engine | None = None,
        callback_url: str | None = None,
        glossary_id: str | None = None,
        subtitle_font: str | None = None,
        subtitle_size: int | None = None,
        subtitle_color: str | None = None,
        subtitle_outline: str | None = None,
        subtitle_outline_width: float | None = None,
        subtitle_bg: str | None = None,
        subtitle_position: SubtitlePosition | None = None,
        enable_dubbing: bool | None = None,
        dubbing_voice: DubbingVoice | None = None,
        dubbing_speed: float | None = None,
        dubbing_bg_music: float | None = None,
        enable_diarization: bool | None = None,
        speaker_count: int | None = None,
        max_subtitle_length: int | None = None,
        subtitle_max_duration: float | None = None,
        subtitle_preset: SubtitlePreset | None = None,
        profanity_filter: bool | None = None,
        start_time: float | None = None,
        end_time: float | None = None,
        additional_target_langs: Sequence[str] | None = None,
        context: str | None = None,
        instructions: Sequence[str] | None = None,
        glossary_ids: Sequence[str] | None = None,
        memory_id: str | None = None,
        subtitle_file: ep.SubtitleInput | None = None,
        extra: Mapping[str, Any] | None = None,
        wait: bool = False,
        on_progress: ProgressCallback | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL_S,
        timeout: float | None = None,
    ) -> Task:
        spec = ep.video_translate_spec(path_or_url, request_fields(locals(), VIDEO_FIELDS, extra), subtitle_file)
        task = Task.model_validate((await self._transport.request(spec)).json())
        if not wait:
            return task
        done = await self.wait(task.task_id, on_progress=on_progress, poll_interval=poll_interval, timeout=timeout)
        return carry_additional_tasks(done, task)

    async def get(self, task_id: str) -> Task:
        return Task.model_validate((await self._transport.request(ep.video_task_spec(task_id))).json())

    async def wait(
        self,
        task_id: str,
        *,
        on_progress: ProgressCallback | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL_S,
        timeout: float | None = None,
    ) -> Task:
        """Poll until final; raise ``TaskFailedError`` / ``WaitTimeoutError`` like the blocking client."""
        reporter = ProgressReporter(on_progress)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            task = await self.get(task_id)
            reporter.observe(task)
            if task.is_final:
                break
            if deadline is not None and time.monotonic() + poll_interval > deadline:
                exc = WaitTimeoutError(None, f"Task {task_id} not finished after {timeout} s (status {task.status}).")
                exc.task = task
                raise exc
            await asyncio.sleep(poll_interval)
        if task.status != "completed":
            raise task_failure(task)
        return task

    async def transcript(self, task_id: str) -> Transcript:
        return Transcript.model_validate((await self._transport.request(ep.video_transcript_spec(task_id))).json())

    async def revise(
        self,
        task_id: str,
        edits: Sequence[SegmentEdit | Mapping[str, Any]],
        *,
        output_format: OutputFormat | None = None,
        bilingual: bool | None = None,
        subtitle_font: str | None = None,
        subtitle_size: int | None = None,
        subtitle_color: str | None = None,
        subtitle_outline: str | None = None,
        subtitle_outline_width: float | None = None,
        subtitle_bg: str | None = None,
        subtitle_position: SubtitlePosition | None = None,
        max_subtitle_length: int | None = None,
        subtitle_max_duration: float | None = None,
        subtitle_preset: SubtitlePreset | None = None,
        enable_dubbing: bool | None = None,
        dubbing_voice: DubbingVoice | None = None,
        dubbing_speed: float | None = None,
        dubbing_bg_music: float | None = None,
        callback_url: str | None = None,
        memory_id: str | None = None,
        extra: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        wait: bool = False,
        on_progress: ProgressCallback | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL_S,
        timeout: float | None = None,
    ) -> Task:
        body = {"segments": segment_edits(edits), **request_fields(locals(), REVISION_FIELDS, extra)}
        spec = ep.video_revise_spec(task_id, body, idempotency_key)
        task = Task.model_validate((await self._transport.request(spec)).json())
        if not wait:
            return task
        return await self.wait(task.task_id, on_progress=on_progress, poll_interval=poll_interval, timeout=timeout)

    async def add_language(
        self,
        task_id: str,
        target_lang: str,
        *,
        output_format: OutputFormat | None = None,
        bilingual: bool | None = None,
        subtitle_font: str | None = None,
        subtitle_size: int | None = None,
        subtitle_color: str | None = None,
        subtitle_outline: str | None = None,
        subtitle_outline_width: float | None = None,
        subtitle_bg: str | None = None,
        subtitle_position: SubtitlePosition | None = None,
        max_subtitle_length: int | None = None,
        subtitle_max_duration: float | None = None,
        subtitle_preset: SubtitlePreset | None = None,
        enable_dubbing: bool | None = None,
        dubbing_voice: DubbingVoice | None = None,
        dubbing_speed: float | None = None,
        dubbing_bg_music: float | None = None,
        callback_url: str | None = None,
        engine: Engine | None = None,
        glossary_id: str | None = None,
        profanity_filter: bool | None = None,
        context: str | None = None,
        instructions: Sequence[str] | None = None,
        glossary_ids: Sequence[str] | None = None,
        memory_id: str | None = None,
        extra: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        wait: bool = False,
        on_progress: ProgressCallback | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL_S,
        timeout: float | None = None,
    ) -> Task:
        spec = ep.video_add_language_spec(task_id, request_fields(locals(), ADD_LANGUAGE_FIELDS, extra), idempotency_key)
        task = Task.model_validate((await self._transport.request(spec)).json())
        if not wait:
            return task
        return await self.wait(task.task_id, on_progress=on_progress, poll_interval=poll_interval, timeout=timeout)

    async def download(self, task: Task | str, directory: str | Path) -> list[Path]:
        record = await self.get(task) if isinstance(task, str) else task
        if record.result is None:
            raise ValueError(f"Task {record.task_id} has no result (status {record.status}).")
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        urls = record.result.download_urls()
        written: list[Path] = []
        for kind, target in ep.download_targets(urls, folder).items():
            written.append(await awrite_chunks(abody_chunks(self._transport, ep.download_spec(urls[kind])), target))
        return written


class AsyncSubtitles:
    """Subtitle files translated without a video (see the blocking ``Subtitles``); the tasks are ``client.video``'s."""

    def __init__(self, transport: AsyncTransport, video: AsyncVideo) -> None:
        self._transport = transport
        self._video = video

    async def translate(
        self,
        file: ep.SubtitleInput,
        target_lang: str,
        *,
        source_lang: str | None = None,
        additional_target_langs: Sequence[str] | None = None,
        output_format: SubtitleFormat | None = None,
        bilingual: bool | None = None,
        engine: Engine | None = None,
        callback_url: str | None = None,
        glossary_id: str | None = None,
        subtitle_font: str | None = None,
        subtitle_size: int | None = None,
        subtitle_color: str | None = None,
        subtitle_outline: str | None = None,
        subtitle_outline_width: float | None = None,
        subtitle_bg: str | None = None,
        subtitle_position: SubtitlePosition | None = None,
        max_subtitle_length: int | None = None,
        subtitle_max_duration: float | None = None,
        subtitle_preset: SubtitlePreset | None = None,
        profanity_filter: bool | None = None,
        context: str | None = None,
        instructions: Sequence[str] | None = None,
        glossary_ids: Sequence[str] | None = None,
        memory_id: str | None = None,
        extra: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        wait: bool = False,
        on_progress: ProgressCallback | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL_S,
        timeout: float | None = None,
    ) -> Task:
        spec = ep.subtitles_translate_spec(file, request_fields(locals(), SUBTITLE_FIELDS, extra), idempotency_key)
        task = Task.model_validate((await self._transport.request(spec)).json())
        if not wait:
            return task
        done = await self._video.wait(task.task_id, on_progress=on_progress, poll_interval=poll_interval, timeout=timeout)
        return carry_additional_tasks(done, task)


class AsyncVoices:
    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def clone(
        self,
        sample_path: ep.PathOrUrl,
        voice_name: str,
        lang: str,
        *,
        description: str | None = None,
        enhance_quality: bool | None = None,
        noise_reduction: bool | None = None,
        gender: VoiceGender | None = None,
        callback_url: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Voice:
        spec = ep.voice_clone_spec(sample_path, request_fields(locals(), VOICE_CLONE_FIELDS, extra))
        return Voice.model_validate((await self._transport.request(spec)).json())

    async def list(
        self, *, status: str | None = None, lang: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> VoiceList:
        spec = ep.voice_list_spec(status, lang, limit, cursor)
        return VoiceList.model_validate((await self._transport.request(spec)).json())

    async def get(self, voice_id: str) -> Voice:
        return Voice.model_validate((await self._transport.request(ep.voice_get_spec(voice_id))).json())

    async def update(self, voice_id: str, *, voice_name: str | None = None, description: str | None = None) -> Voice:
        spec = ep.voice_update_spec(voice_id, voice_name, description)
        return Voice.model_validate((await self._transport.request(spec)).json())

    async def delete(self, voice_id: str) -> bool:
        return bool((await self._transport.request(ep.voice_delete_spec(voice_id))).json().get("deleted"))
