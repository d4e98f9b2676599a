"""Endpoint groups of the blocking :class:`~mediatrans_client.Client`.

Every request field of the contract is a keyword argument of the same name (``None``: left out, the
service's default applies); ``extra`` adds fields the signature does not know (extensions), over them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mediatrans_client import _endpoints as ep
from mediatrans_client._chunks import body_chunks, write_chunks
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
from mediatrans_client._sync_text_resources import Game, Grammar, Speech  # noqa: F401  (re-exported)
from mediatrans_client._transport import SyncTransport
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

DEFAULT_POLL_INTERVAL_S = 5.0


def carry_additional_tasks(done: Task, submitted: Task) -> Task:
    """The waited-for main task with the submission's ``additional_tasks`` (a polled record does not list them)."""
    if submitted.additional_tasks is None:
        return done
    return done.model_copy(update={"additional_tasks": submitted.additional_tasks})


class Video:
    """Video translation tasks: submit, poll, wait, download; read a transcript, revise it, add a language."""

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def translate(
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
        """Submit a video (local file, streamed; or an ``http(s)`` URL sent as ``video_url``).

        The keyword arguments up to ``end_time`` are the contract's fields (4.1). Extensions:
        ``additional_target_langs`` (at most 10 more languages, sent comma-joined) makes a task per language,
        listed in the answer's ``additional_tasks``; ``subtitle_file`` (a path, bytes or a binary file: the
        video's own source-language subtitles, or a transcript JSON of this service) is used instead of speech
        recognition. ``context``, ``instructions``, ``glossary_ids`` and ``memory_id`` steer the translation (sent only
        when given). With ``wait=True`` the finished main task is returned (see :meth:`wait`), still listing
        ``additional_tasks``: those are not waited for (``wait`` on each ``task_id``).
        """
        spec = ep.video_translate_spec(path_or_url, request_fields(locals(), VIDEO_FIELDS, extra), subtitle_file)
        task = Task.model_validate(self._transport.request(spec).json())
        if not wait:
            return task
        done = self.wait(task.task_id, on_progress=on_progress, poll_interval=poll_interval, timeout=timeout)
        return carry_additional_tasks(done, task)

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

    def transcript(self, task_id: str) -> Transcript:
        """The transcript a completed task rendered (``ConflictError`` while it runs, or once it has expired)."""
        return Transcript.model_validate(self._transport.request(ep.video_transcript_spec(task_id)).json())

    def revise(
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
        """Start a new task that renders ``task_id``'s transcript again with ``edits`` applied, without recognizing again.

        ``edits``: :class:`SegmentEdit` s or dicts (``id`` and any of ``source``, ``translation``,
        ``speaker``, ``start``, ``end``). The keyword arguments up to ``callback_url`` are the output
        choices a revision may change; ``None`` keeps the parent's. ``memory_id``: a translation memory each
        ``translation`` edit is added to (extension). ``idempotency_key``: the request's key
        (default: a fresh one, the same on every retry). The new task is polled and downloaded like any
        other (its record names ``parent_task_id`` and ``revision``); with ``wait=True`` it is returned
        finished (see :meth:`wait`).
        """
        body = {"segments": segment_edits(edits), **request_fields(locals(), REVISION_FIELDS, extra)}
        task = Task.model_validate(self._transport.request(ep.video_revise_spec(task_id, body, idempotency_key)).json())
        if not wait:
            return task
        return self.wait(task.task_id, on_progress=on_progress, poll_interval=poll_interval, timeout=timeout)

    def add_language(
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
        """Start a new task that translates completed ``task_id``'s transcript into ``target_lang``, without recognizing again.

        The keyword arguments up to ``profanity_filter`` are the output choices of a submission; ``None``
        keeps the parent's, except ``glossary_id`` and ``callback_url`` (none unless given) and
        ``max_subtitle_length`` / ``subtitle_max_duration`` (the new language's preset unless given); the steering
        fields ``context`` … ``memory_id`` are sent only when given. ``idempotency_key``: the
        request's key (default: a fresh one, the same on every retry). The new task is polled and downloaded like any
        other (its record names ``parent_task_id``; the answer also ``target_lang``); with ``wait=True`` it is returned
        finished (see :meth:`wait`).
        """
        spec = ep.video_add_language_spec(task_id, request_fields(locals(), ADD_LANGUAGE_FIELDS, extra), idempotency_key)
        task = Task.model_validate(self._transport.request(spec).json())
        if not wait:
            return task
        return self.wait(task.task_id, on_progress=on_progress, poll_interval=poll_interval, timeout=timeout)

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
        write_chunks(body_chunks(self._transport, ep.download_spec(url)), target)


class Subtitles:
    """Subtitle files translated without a video (extension): each submission is a video task, read, waited for,
    downloaded, revised and extended with ``client.video``."""

    def __init__(self, transport: SyncTransport, video: Video) -> None:
        self._transport = transport
        self._video = video

    def translate(
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
        """Translate a subtitle file (SubRip, WebVTT, ASS/SSA or TTML, at most 2 MB) into ``target_lang``, keeping its cue times.

        ``file``: a path, bytes or a binary file open for reading. ``source_lang``: ``None`` (or ``auto``) has
        the service tell it from the text. ``additional_target_langs``: at most 10 more languages (sent
        comma-joined), a task each, listed in the answer's ``additional_tasks``. The other keyword arguments up to
        ``memory_id`` are the output choices and steering fields of a video submission (``burned_video`` aside).
        ``idempotency_key``: the request's key (default: a fresh one, the same on every retry). With ``wait=True``
        the finished main task is returned (see :meth:`Video.wait`), still listing ``additional_tasks``, which are
        not waited for.
        """
        spec = ep.subtitles_translate_spec(file, request_fields(locals(), SUBTITLE_FIELDS, extra), idempotency_key)
        task = Task.model_validate(self._transport.request(spec).json())
        if not wait:
            return task
        done = self._video.wait(task.task_id, on_progress=on_progress, poll_interval=poll_interval, timeout=timeout)
        return carry_additional_tasks(done, task)


class Voices:
    """Cloned voices."""

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def clone(
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
        """Create a voice from a 10–60 s sample (file, or an ``http(s)`` audio URL); fields of contract 4.3."""
        spec = ep.voice_clone_spec(sample_path, request_fields(locals(), VOICE_CLONE_FIELDS, extra))
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
