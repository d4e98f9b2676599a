"""Endpoint groups of the asyncio :class:`~mediatrans_client.AsyncClient`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mediatrans_client import _endpoints as ep
from mediatrans_client._progress import ProgressCallback, ProgressReporter, task_failure
from mediatrans_client._sync_resources import DEFAULT_POLL_INTERVAL_S
from mediatrans_client._transport import AsyncTransport
from mediatrans_client.errors import WaitTimeoutError
from mediatrans_client.models import GrammarResult, LocalizationResult, NativeVoiceList, Task, Voice, VoiceList


class AsyncVideo:
    """Video translation tasks: submit, poll, wait, download (see the blocking ``Video`` for details)."""

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def translate(
        self,
        path_or_url: ep.PathOrUrl,
        *,
        target_lang: str,
        source_lang: str = "auto",
        output_format: str = "srt",
        wait: bool = False,
        on_progress: ProgressCallback | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL_S,
        timeout: float | None = None,
        **fields: Any,
    ) -> Task:
        spec = ep.video_translate_spec(path_or_url, target_lang, source_lang, output_format, fields)
        task = Task.model_validate((await self._transport.request(spec)).json())
        if not wait:
            return task
        return await self.wait(task.task_id, on_progress=on_progress, poll_interval=poll_interval, timeout=timeout)

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

    async def download(self, task: Task | str, directory: str | Path) -> list[Path]:
        record = await self.get(task) if isinstance(task, str) else task
        if record.result is None:
            raise ValueError(f"Task {record.task_id} has no result (status {record.status}).")
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        urls = record.result.download_urls()
        written: list[Path] = []
        for kind, target in ep.download_targets(urls, folder).items():
            partial = target.with_name(target.name + ".part")
            async with self._transport.stream(ep.download_spec(urls[kind])) as response:
                with open(partial, "wb") as out:
                    async for chunk in response.aiter_bytes():
                        out.write(chunk)
            partial.replace(target)
            written.append(target)
        return written


class AsyncVoices:
    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def clone(self, sample_path: ep.PathOrUrl, voice_name: str, lang: str, **fields: Any) -> Voice:
        spec = ep.voice_clone_spec(sample_path, voice_name, lang, fields)
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


class AsyncSpeech:
    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def synthesize(self, text: str, voice: str | None, output_path: str | Path, **fields: Any) -> Path:
        target = Path(output_path)
        partial = target.with_name(target.name + ".part")
        async with self._transport.stream(ep.tts_spec(text, voice, fields)) as response:
            with open(partial, "wb") as out:
                async for chunk in response.aiter_bytes():
                    out.write(chunk)
        partial.replace(target)
        return target

    async def voices(self, lang: str | None = None) -> NativeVoiceList:
        return NativeVoiceList.model_validate((await self._transport.request(ep.tts_voices_spec(lang))).json())


class AsyncGrammar:
    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def check(self, text: str, lang: str | None = None, **options: Any) -> GrammarResult:
        return GrammarResult.model_validate((await self._transport.request(ep.grammar_spec(text, lang, options))).json())


class AsyncGame:
    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def localize(
        self, text: str, source_lang: str, target_langs: Sequence[str], *, content_type: str = "ui", **options: Any
    ) -> LocalizationResult:
        spec = ep.game_spec(text, source_lang, target_langs, content_type, options)
        return LocalizationResult.model_validate((await self._transport.request(spec)).json())
