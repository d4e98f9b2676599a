"""``mediatrans video add-language TASK_ID --to de,fr``: translate a completed task's transcript into more languages."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session, handles_errors, pass_session
from mediatrans_client.cli.fields import parse_fields
from mediatrans_client.cli.language_tasks import (
    MAX_TARGETS,
    LanguageTask,
    exit_code,
    failure_records,
    follow_language_tasks,
    note_failures,
    print_language_tasks,
    target_languages,
)
from mediatrans_client.cli.revision_commands import output_choices, revise_options
from mediatrans_client.cli.steering import steering_fields, steering_options
from mediatrans_client.cli.video_commands import PRESETS, follow_options, video
from mediatrans_client.errors import InvalidRequestError, MediatransError
from mediatrans_client.types import DubbingVoice, Engine, OutputFormat, SubtitlePreset

#: The video group's code for a target the service does not offer for the parent (400): only that language is refused.
LANGUAGE_REFUSED = "INVALID_LANG_CODE"


def refuses_language(exc: MediatransError) -> bool:
    """Whether ``exc`` refuses the target language alone (the other targets may still be added)."""
    return isinstance(exc, InvalidRequestError) and exc.status == 400 and exc.code == LANGUAGE_REFUSED


def _submit(session: Session, task_id: str, langs: list[str], choices: dict[str, Any]) -> list[LanguageTask]:
    """One request per language, each with its own idempotency key.

    A refused language is kept with its error and the next one is sent; any other error stops the command,
    after printing the tasks created so far.
    """
    added: list[LanguageTask] = []
    for lang in langs:
        item = LanguageTask(lang)
        try:
            item.task = session.client.video.add_language(task_id, lang, **choices)
        except MediatransError as exc:
            if not refuses_language(exc):
                if any(done.task is not None for done in added):
                    print_language_tasks(session, {"parent_task_id": task_id}, added)
                raise
            item.error = exc
        added.append(item)
    return added


def _report_none_added(session: Session, added: list[LanguageTask]) -> int:
    """Every language was refused: each one's error on stderr; the exit code of the first."""
    first = next(item.error for item in added if item.error is not None)
    code = output.exit_code_for(first)
    if session.as_json:
        record = {**output.error_record(first), "message": "No language could be added.", "failed": failure_records(added)}
        sys.stderr.write(json.dumps({"error": record}, ensure_ascii=False) + "\n")
        return code
    note_failures(added)
    output.note("error: no language could be added; no task was created")
    return code


@video.command("add-language")
@click.argument("task_id")
@click.option(
    "--to", "targets", required=True, metavar="LANGS", help=f"Comma-separated target codes, e.g. de,fr (at most {MAX_TARGETS})."
)
@revise_options
@click.option("--engine", type=click.Choice(("standard", "professional")), help="Translation engine (default: the parent's).")
@steering_options("Glossary for the new language pair, none unless given")
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
    context: str | None,
    instructions: tuple[str, ...],
    glossaries: tuple[str, ...],
    memory_id: str | None,
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
        **steering_fields(context, instructions, glossaries, memory_id),
        "subtitle_preset": subtitle_preset,
        "extra": parse_fields(extra),
    }
    added = _submit(session, task_id, langs, choices)
    if all(item.task is None for item in added):
        raise SystemExit(_report_none_added(session, added))
    if wait or out is not None:
        follow_language_tasks(session, added, poll_interval, wait_timeout, out)
    print_language_tasks(session, {"parent_task_id": task_id}, added)
    if not session.as_json and not (wait or out):
        output.note("follow each with: mediatrans video status TASK_ID --wait")
    code = exit_code(added)
    if code != output.EXIT_OK:
        raise SystemExit(code)
