"""Tasks in several target languages: the ``--to`` list, following every task, downloading each into ``DIR/<lang>/``,
printing each under its language, and the exit code (``video translate``, ``video add-language``, ``subtitles translate``)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session
from mediatrans_client.cli.video_commands import ProgressBar, follow_task, print_task
from mediatrans_client.errors import MediatransError, TaskFailedError, WaitTimeoutError
from mediatrans_client.models import Task

#: Target languages one command takes at most.
MAX_TARGETS = 10
_LANGUAGE_CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


@dataclass
class LanguageTask:
    """One target language: its task once created, the files downloaded (with ``--out``), or why it is not done."""

    lang: str
    task: Task | None = None
    files: list[Path] | None = None
    error: MediatransError | None = None


def target_languages(value: str) -> list[str]:
    """The codes of ``--to`` in their order, each once (case aside); refuses an empty item, a non-code, more than ten."""
    if not value.strip():
        raise click.BadParameter("give at least one language code, e.g. --to de,fr", param_hint="--to")
    unique: dict[str, str] = {}
    for code in (item.strip() for item in value.split(",")):
        if not code:
            raise click.BadParameter(f"empty language code in {value!r}", param_hint="--to")
        if not _LANGUAGE_CODE.fullmatch(code):
            raise click.BadParameter(f"not a language code: {code!r}", param_hint="--to")
        unique.setdefault(code.casefold(), code)
    if len(unique) > MAX_TARGETS:
        raise click.BadParameter(f"at most {MAX_TARGETS} languages at a time, got {len(unique)}", param_hint="--to")
    return list(unique.values())


def submitted_tasks(target_lang: str, task: Task) -> list[LanguageTask]:
    """A submission's tasks: the main one under ``target_lang``, then each additional task (queued when created)
    under the service's code for its language."""
    added = [LanguageTask(item.target_lang, Task(task_id=item.task_id, status="queued")) for item in task.additional_tasks or []]
    return [LanguageTask(target_lang, task), *added]


def _wait(session: Session, lang: str, task: Task, poll_interval: float, timeout: float | None) -> Task:
    """Wait for one task with a progress bar (on a terminal, without ``--json``)."""
    show_bar = not session.as_json and output.stderr.is_terminal
    if show_bar:
        output.note(f"{lang}: {task.task_id}")
    with ProgressBar(show_bar) as bar:
        bar.update(task)
        return session.client.video.wait(task.task_id, on_progress=bar.update, poll_interval=poll_interval, timeout=timeout)


def follow_language_tasks(
    session: Session, items: list[LanguageTask], poll_interval: float, timeout: float | None, out: Path | None
) -> None:
    """Wait for every created task (``timeout`` is for all of them), downloading each completed one into ``out/<lang>``.

    A task that fails or is still running at the deadline keeps its error; the others are still waited for.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    for item in items:
        if item.task is None:
            continue
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            item.task = _wait(session, item.lang, item.task, poll_interval, left)
        except (TaskFailedError, WaitTimeoutError) as exc:
            item.task, item.error = exc.task or item.task, exc
            continue
        if out is not None:
            item.files = session.client.video.download(item.task, out / item.lang)


def _record(lang: str, task: Task, files: list[Path] | None) -> dict[str, Any]:
    record: dict[str, Any] = {"lang": lang, **task.model_dump(mode="json", exclude_none=True)}
    if files is not None:
        record["downloaded"] = [str(path) for path in files]
    return record


def failure_records(items: list[LanguageTask]) -> list[dict[str, Any]]:
    """Each language not done, with its error as the ``--json`` error object has it."""
    return [{"lang": item.lang, **output.error_record(item.error)} for item in items if item.error is not None]


def note_failures(items: list[LanguageTask]) -> None:
    """Each language not done and why, one line each on stderr."""
    for item in items:
        exc = item.error
        if exc is None:
            continue
        facts = ", ".join(
            f for f in (f"code {exc.code}" if exc.code is not None else "", f"HTTP {exc.status}" if exc.status else "") if f
        )
        output.note(f"error: {item.lang}: {exc.message}" + (f" ({facts})" if facts else ""))


def print_language_tasks(session: Session, head: dict[str, Any], items: list[LanguageTask]) -> None:
    """Each created task under its language (with the files downloaded), then each language not done and why.

    ``head``: what the ``--json`` document names before its ``tasks`` and ``failed`` lists.
    """
    if session.as_json:
        tasks = [_record(item.lang, item.task, item.files) for item in items if item.task is not None]
        output.emit_json({**head, "tasks": tasks, "failed": failure_records(items)})
        return
    for item in items:
        if item.task is not None:
            output.say(f"language  {item.lang}")
            print_task(session, item.task, item.files)
    note_failures(items)


def exit_code(items: list[LanguageTask]) -> int:
    """0 when every language is done; a failed or timed-out task's code first; 11 when only some languages were refused."""
    errors = [item.error for item in items if item.error is not None]
    unfinished = [exc for exc in errors if isinstance(exc, (TaskFailedError, WaitTimeoutError))]
    if unfinished:
        return output.exit_code_for(unfinished[0])
    return output.EXIT_PARTIAL if errors else output.EXIT_OK


def show_submission(
    session: Session, langs: list[str], task: Task, wait: bool, out: Path | None, poll_interval: float, timeout: float | None
) -> None:
    """Print a submission, or follow it with ``--wait``/``--out``.

    One language: the task as ``video translate`` always showed it (``--out DIR`` downloads into ``DIR``). Several:
    every task under its language, each followed and downloaded into ``DIR/<lang>/``; exit 9 or 10 when one of
    them failed or outlasted ``--wait-timeout``, after the others are followed.
    """
    follow = wait or out is not None
    if len(langs) == 1:
        if follow:
            follow_task(session, task, poll_interval, timeout, out)
            return
        print_task(session, task)
        if not session.as_json:
            output.note(f"follow it with: mediatrans video status {task.task_id} --wait")
        return
    items = submitted_tasks(langs[0], task)
    if follow:
        follow_language_tasks(session, items, poll_interval, timeout, out)
    print_language_tasks(session, {"task_id": task.task_id}, items)
    if not session.as_json and not follow:
        output.note("follow each with: mediatrans video status TASK_ID --wait")
    code = exit_code(items)
    if code != output.EXIT_OK:
        raise SystemExit(code)
