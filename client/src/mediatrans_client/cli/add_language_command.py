"""``mediatrans video add-language TASK_ID --to de,fr``: translate a completed task's transcript into more languages."""

from __future__ import annotations

import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session, handles_errors, pass_session
from mediatrans_client.cli.fields import parse_fields
from mediatrans_client.cli.revision_commands import output_choices, revise_options
from mediatrans_client.cli.video_commands import PRESETS, ProgressBar, follow_options, print_task, video
from mediatrans_client.errors import InvalidRequestError, MediatransError, TaskFailedError, WaitTimeoutError
from mediatrans_client.models import Task
from mediatrans_client.types import DubbingVoice, Engine, OutputFormat, SubtitlePreset

#: Target languages one command adds at most.
MAX_TARGETS = 10
#: The video group's code for a target the service does not offer for the parent (400): only that language is refused.
LANGUAGE_REFUSED = "INVALID_LANG_CODE"
_LANGUAGE_CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


@dataclass
class AddedLanguage:
    """One target of the command: its task once created, the files downloaded (with ``--out``), or why it is not done."""

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


def refuses_language(exc: MediatransError) -> bool:
    """Whether ``exc`` refuses the target language alone (the other targets may still be added)."""
    return isinstance(exc, InvalidRequestError) and exc.status == 400 and exc.code == LANGUAGE_REFUSED


def _submit(session: Session, task_id: str, langs: list[str], choices: dict[str, Any]) -> list[AddedLanguage]:
    """One request per language, each with its own idempotency key.

    A refused language is kept with its error and the next one is sent; any other error stops the command,
    after printing the tasks created so far.
    """
    added: list[AddedLanguage] = []
    for lang in langs:
        item = AddedLanguage(lang)
        try:
            item.task = session.client.video.add_language(task_id, lang, **choices)
        except MediatransError as exc:
            if not refuses_language(exc):
                if any(done.task is not None for done in added):
                    _print_added(session, task_id, added)
                raise
            item.error = exc
        added.append(item)
    return added


def _wait(session: Session, lang: str, task: Task, poll_interval: float, timeout: float | None) -> Task:
    """Wait for one task with a progress bar (on a terminal, without ``--json``)."""
    show_bar = not session.as_json and output.stderr.is_terminal
    if show_bar:
        output.note(f"{lang}: {task.task_id}")
    with ProgressBar(show_bar) as bar:
        bar.update(task)
        return session.client.video.wait(task.task_id, on_progress=bar.update, poll_interval=poll_interval, timeout=timeout)


def _follow(session: Session, added: list[AddedLanguage], poll_interval: float, timeout: float | None, out: Path | None) -> None:
    """Wait for every created task (``timeout`` is for all of them), downloading each completed one into ``out/<lang>``.

    A task that fails or is still running at the deadline keeps its error; the others are still waited for.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    for item in added:
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


def _failures(added: list[AddedLanguage]) -> list[dict[str, Any]]:
    return [{"lang": item.lang, **output.error_record(item.error)} for item in added if item.error is not None]


def _note_failures(added: list[AddedLanguage]) -> None:
    for item in added:
        exc = item.error
        if exc is None:
            continue
        facts = ", ".join(
            f for f in (f"code {exc.code}" if exc.code is not None else "", f"HTTP {exc.status}" if exc.status else "") if f
        )
        output.note(f"error: {item.lang}: {exc.message}" + (f" ({facts})" if facts else ""))


def _print_added(session: Session, task_id: str, added: list[AddedLanguage]) -> None:
    """Each created task under its language (with the files downloaded), then each language not done and why."""
    if session.as_json:
        tasks = [_record(item.lang, item.task, item.files) for item in added if item.task is not None]
        output.emit_json({"parent_task_id": task_id, "tasks": tasks, "failed": _failures(added)})
        return
    for item in added:
        if item.task is not None:
            output.say(f"language  {item.lang}")
            print_task(session, item.task, item.files)
    _note_failures(added)


def _report_none_added(session: Session, added: list[AddedLanguage]) -> int:
    """Every language was refused: each one's error on stderr; the exit code of the first."""
    first = next(item.error for item in added if item.error is not None)
    code = output.exit_code_for(first)
    if session.as_json:
        record = {**output.error_record(first), "message": "No language could be added.", "failed": _failures(added)}
        sys.stderr.write(json.dumps({"error": record}, ensure_ascii=False) + "\n")
        return code
    _note_failures(added)
    output.note("error: no language could be added; no task was created")
    return code


def _exit_code(added: list[AddedLanguage]) -> int:
    """0 when every language is done; a failed or timed-out task's code first; 11 when only some languages were refused."""
    errors = [item.error for item in added if item.error is not None]
    unfinished = [exc for exc in errors if isinstance(exc, (TaskFailedError, WaitTimeoutError))]
    if unfinished:
        return output.exit_code_for(unfinished[0])
    return output.EXIT_PARTIAL if errors else output.EXIT_OK


@video.command("add-language")
@click.argument("task_id")
@click.option(
    "--to", "targets", required=True, metavar="LANGS", help=f"Comma-separated target codes, e.g. de,fr (at most {MAX_TARGETS})."
)
@revise_options
@click.option("--engine", type=click.Choice(("standard", "professional")), help="Translation engine (default: the parent's).")
@click.option("--glossary", "glossary_id", metavar="ID", help="Glossary for the new language pair (default: none).")
@click.option("--preset", "subtitle_preset", type=click.Choice(PRESETS), help="Timed-text preset (default: the parent's).")
@follow_options
@pass_session
@handles_errors
def add_language(
    session: Session,
    task_id: str,
    targets: str,
    output_format: OutputFormat | None,
    bilingual: bool | None,
    dub: bool | None,
    dubbing_voice: DubbingVoice | None,
    callback_url: str | None,
    extra: tuple[str, ...],
    engine: Engine | None,
    glossary_id: str | None,
    subtitle_preset: SubtitlePreset | None,
    wait: bool,
    out: Path | None,
    poll_interval: float,
    wait_timeout: float | None,
) -> None:
    """Translate a completed task into more languages: one new task per --to language (nothing is recognized again).

    Each output choice left out is the parent's, except the glossary and the callback (none unless given) and the
    line limits (the new language's preset). --out downloads each language's files into their own folder, DIR/<lang>/.
    A language the service does not offer is reported and the others are still added (exit 11).

    \b
    mediatrans video add-language TASK_ID --to de,fr,it --format all --wait --out ./subs
    """
    langs = target_languages(targets)
    choices = {
        **output_choices(output_format, bilingual, dub, dubbing_voice, callback_url),
        "engine": engine,
        "glossary_id": glossary_id,
        "subtitle_preset": subtitle_preset,
        "extra": parse_fields(extra),
    }
    added = _submit(session, task_id, langs, choices)
    if all(item.task is None for item in added):
        raise SystemExit(_report_none_added(session, added))
    if wait or out is not None:
        _follow(session, added, poll_interval, wait_timeout, out)
    _print_added(session, task_id, added)
    if not session.as_json and not (wait or out):
        output.note("follow each with: mediatrans video status TASK_ID --wait")
    code = _exit_code(added)
    if code != output.EXIT_OK:
        raise SystemExit(code)
