"""Endpoint groups of the blocking :class:`~mediatrans_client.Client`."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from mediatrans_client import _endpoints as ep
from mediatrans_client._progress import ProgressCallback, ProgressReporter, task_failure
from mediatrans_client._transport import SyncTransport
from mediatrans_client.errors import WaitTimeoutError
from mediatrans_client.models import GrammarResult, LocalizationResult, NativeVoiceList, Task, Voice, VoiceList

DEFAULT_POLL_INTERVAL_S = 5.0


class Video:
    """Video translation tasks: submit, poll, wait, download."""

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def translate(
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
        """Submit a video (local file, streamed; or an ``http(s)`` URL sent as ``video_url``).

        Extra contract fields (``bilingual``, ``engine``, ``callback_url``, ``enable_dubbing``...)
        go in ``fields``. With ``wait=True`` the finished task is returned (see :meth:`wait`).
        """
        spec = ep.video_translate_spec(path_or_url, target_lang, source_lang, output_format, fields)
        task = Task.model_validate(self._transport.request(spec).json())
        if not wait:
            return task
        return self.wait(task.task_id, on_progress=on_progress, poll_interval=poll_interval, timeout=timeout)

    def get(self, task_id: str) -> Task:
        return Task.model_validate(self._transport.request(ep.video_task_spec(task_id)).json())

    def wait(
        self,
        task_id: str,
        *,
        on_progress: ProgressCallback | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL_S,
        timeout: float | None = None,
    ) -> Task:
        """Poll until the task is final; return it when ``completed``.

        Raises:
            TaskFailedError: the task ended ``failed`` or ``expired`` (``.task`` holds it).
            WaitTimeoutError: ``timeout`` seconds passed first (``.task`` holds the last record).
        """
        reporter = ProgressReporter(on_progress)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            task = self.get(task_id)
            reporter.observe(task)
            if task.is_final:
                break
            if deadline is not None and time.monotonic() + poll_interval > deadline:
                exc = WaitTimeoutError(None, f"Task {task_id} not finished after {timeout} s (status {task.status}).")
                exc.task = task
                raise exc
            time.sleep(poll_interval)
        if task.status != "completed":
            raise task_failure(task)
        return task

    def download(self, task: Task | str, directory: str | Path) -> list[Path]:
        """Stream every result link of a completed task into ``directory``; return the written paths."""
        record = self.get(task) if isinstance(task, str) else task
        if record.result is None:
            raise ValueError(f"Task {record.task_id} has no result (status {record.status}).")
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        urls = record.result.download_urls()
        written: list[Path] = []
        for kind, target in ep.download_targets(urls, folder).items():
            self._stream_to(urls[kind], target)
            written.append(target)
        return written

    def _stream_to(self, url: str, target: Path) -> None:
        partial = target.with_name(target.name + ".part")
        with self._transport.stream(ep.download_spec(url)) as response, open(partial, "wb") as out:
            for chunk in response.iter_bytes():
                out.write(chunk)
        partial.replace(target)


class Voices:
    """Cloned voices."""

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def clone(self, sample_path: ep.PathOrUrl, voice_name: str, lang: str, **fields: Any) -> Voice:
        """Create a voice from a 10–60 s sample (file, or an ``http(s)`` audio URL)."""
        spec = ep.voice_clone_spec(sample_path, voice_name, lang, fields)
        return Voice.model_validate(self._transport.request(spec).json())

    def list(
        self, *, status: str | None = None, lang: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> VoiceList:
        """One page of the account's voices; ``next_cursor`` is set when more follow."""
        return VoiceList.model_validate(self._transport.request(ep.voice_list_spec(status, lang, limit, cursor)).json())

    def iter_all(self, *, status: str | None = None, lang: str | None = None) -> Iterator[Voice]:
        """Every voice, following ``next_cursor`` page by page."""
        cursor: str | None = None
        while True:
            page = self.list(status=status, lang=lang, limit=100, cursor=cursor)
            yield from page.voices
            cursor = page.next_cursor
            if not cursor or not page.voices:
                return

    def get(self, voice_id: str) -> Voice:
        return Voice.model_validate(self._transport.request(ep.voice_get_spec(voice_id)).json())

    def update(self, voice_id: str, *, voice_name: str | None = None, description: str | None = None) -> Voice:
        """Rename a voice and/or change its description."""
        return Voice.model_validate(self._transport.request(ep.voice_update_spec(voice_id, voice_name, description)).json())

    def delete(self, voice_id: str) -> bool:
        return bool(self._transport.request(ep.voice_delete_spec(voice_id)).json().get("deleted"))


class Speech:
    """Text to speech."""

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def synthesize(self, text: str, voice: str | None, output_path: str | Path, **fields: Any) -> Path:
        """Speak ``text`` with ``voice`` (native id or cloned ``voice_id``); stream the audio to ``output_path``."""
        target = Path(output_path)
        partial = target.with_name(target.name + ".part")
        with self._transport.stream(ep.tts_spec(text, voice, fields)) as response, open(partial, "wb") as out:
            for chunk in response.iter_bytes():
                out.write(chunk)
        partial.replace(target)
        return target

    def voices(self, lang: str | None = None) -> NativeVoiceList:
        """The native voices (``GET /v1/tts/voices``), optionally of one language."""
        return NativeVoiceList.model_validate(self._transport.request(ep.tts_voices_spec(lang)).json())


class Grammar:
    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def check(self, text: str, lang: str | None = None, **options: Any) -> GrammarResult:
        """Options: ``auto_correct``, ``check_types``, ``severity``, ``disable_rules``, ``domain``."""
        return GrammarResult.model_validate(self._transport.request(ep.grammar_spec(text, lang, options)).json())


class Game:
    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def localize(
        self, text: str, source_lang: str, target_langs: Sequence[str], *, content_type: str = "ui", **options: Any
    ) -> LocalizationResult:
        """Options: ``genre``, ``tone``, ``max_length``. ``content_type``: ui, dialogue, item_desc, skill, story, tutorial."""
        spec = ep.game_spec(text, source_lang, target_langs, content_type, options)
        return LocalizationResult.model_validate(self._transport.request(spec).json())
