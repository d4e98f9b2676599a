"""``mediatrans video transcript | revise | edit``: read what a task rendered, and render it again with edits."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

import click

from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session, handles_errors, pass_session
from mediatrans_client.cli.fields import parse_fields
from mediatrans_client.cli.transcript_files import (
    EditFileError,
    changed_fields,
    dump_rows,
    editable_rows,
    editor_command,
    read_edits,
)
from mediatrans_client.cli.video_commands import FORMATS, VOICES, follow_options, follow_task, print_task, video
from mediatrans_client.models import SegmentEdit, Task
from mediatrans_client.types import DubbingVoice, OutputFormat

F = TypeVar("F", bound=Callable[..., Any])


def revise_options(command: F) -> F:
    """The output choices of ``revise``, ``edit`` and ``add-language``; each one left out is the parent's."""
    options = (
        click.option("--format", "output_format", type=click.Choice(FORMATS), help="Output format (default: the parent's)."),
        click.option("--bilingual/--no-bilingual", default=None, help="Source and translation in every cue, or not."),
        click.option("--dub/--no-dub", default=None, help="Dub the translation, or stop dubbing."),
        click.option("--voice", "dubbing_voice", type=click.Choice(VOICES), help="Dubbing voice."),
        click.option("--callback-url", metavar="URL", help="Receives a signed POST when the new task ends."),
        click.option("-f", "--field", "extra", multiple=True, metavar="NAME=VALUE", help="Any other output choice (repeatable)."),
    )
    for option in reversed(options):
        command = option(command)
    return command


def output_choices(
    output_format: OutputFormat | None,
    bilingual: bool | None,
    dub: bool | None,
    dubbing_voice: DubbingVoice | None,
    callback_url: str | None,
) -> dict[str, Any]:
    """The options of :func:`revise_options` as keyword arguments of ``video.revise`` (``None``: not given).

    ``video.add_language`` takes the same ones.
    """
    return {
        "output_format": output_format,
        "bilingual": bilingual,
        "enable_dubbing": dub,
        "dubbing_voice": dubbing_voice,
        "callback_url": callback_url,
    }


def _revise(
    session: Session,
    task_id: str,
    edits: Sequence[SegmentEdit | dict[str, Any]],
    given: dict[str, Any],
    extra: tuple[str, ...],
    file_choices: dict[str, Any] | None = None,
) -> Task:
    """Submit the revision: the options ``given`` win over the file's choices, ``-f`` fields over both."""
    fields = {name: value for name, value in (file_choices or {}).items() if given.get(name) is None}
    return session.client.video.revise(task_id, edits, **given, extra=fields | parse_fields(extra))


def _show(session: Session, task: Task, wait: bool, out: Path | None, poll_interval: float, wait_timeout: float | None) -> None:
    if wait or out is not None:
        follow_task(session, task, poll_interval, wait_timeout, out)
        return
    print_task(session, task)
    if not session.as_json:
        output.note(f"follow it with: mediatrans video status {task.task_id} --wait")


@video.command("transcript")
@click.argument("task_id")
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the JSON here instead of stdout.")
@pass_session
@handles_errors
def transcript(session: Session, task_id: str, out: Path | None) -> None:
    """Print a completed task's transcript as JSON: its segments with times, speaker, source and translation.

    \b
    mediatrans video transcript TASK_ID -o talk.transcript.json
    """
    record = session.client.video.transcript(task_id).model_dump(mode="json", exclude_unset=True)
    if out is None:
        output.emit_json(record)
        return
    out.write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    if session.as_json:
        output.emit_json({"task_id": task_id, "path": str(out), "segments": len(record["segments"])})
    else:
        output.note(f"wrote {out} ({len(record['segments'])} segments)")


@video.command("revise")
@click.argument("task_id")
@click.argument("edits_file", metavar="EDITS.json", type=click.File("r", encoding="utf-8"))
@revise_options
@click.option("--memory", "memory_id", metavar="ID", help="Translation memory each changed translation is added to.")
@follow_options
@pass_session
@handles_errors
def revise(
    session: Session,
    task_id: str,
    edits_file: IO[str],
    output_format: OutputFormat | None,
    bilingual: bool | None,
    dub: bool | None,
    dubbing_voice: DubbingVoice | None,
    callback_url: str | None,
    extra: tuple[str, ...],
    memory_id: str | None,
    wait: bool,
    out: Path | None,
    poll_interval: float,
    wait_timeout: float | None,
) -> None:
    """Render a completed task again with the edits of a JSON file, as a new task (nothing is recognized again).

    EDITS.json ('-': stdin) is a list of edits, [{"id": "s3", "translation": "..."}, ...] (each an id and any
    of source, translation, speaker, start, end), or an object {"segments": [...], "output_format": ...}
    whose output choices the options given here override. --memory adds each edited translation to that
    translation memory, so later tasks reuse the correction.

    \b
    mediatrans video revise TASK_ID edits.json --format all --wait --out ./subs
    """
    try:
        edits, file_choices = read_edits(edits_file.read())
    except EditFileError as exc:
        raise click.BadParameter(str(exc), param_hint="EDITS.json") from None
    if not edits:
        raise click.BadParameter("no edits in the file", param_hint="EDITS.json")
    given = output_choices(output_format, bilingual, dub, dubbing_voice, callback_url) | {"memory_id": memory_id}
    task = _revise(session, task_id, edits, given, extra, file_choices)
    _show(session, task, wait, out, poll_interval, wait_timeout)


@video.command("edit")
@click.argument("task_id")
@click.option("--editor", metavar="CMD", help="Editor command (default: $VISUAL, then $EDITOR, then vi).")
@revise_options
@click.option("--memory", "memory_id", metavar="ID", help="Translation memory each changed translation is added to.")
@follow_options
@pass_session
@handles_errors
def edit(
    session: Session,
    task_id: str,
    editor: str | None,
    output_format: OutputFormat | None,
    bilingual: bool | None,
    dub: bool | None,
    dubbing_voice: DubbingVoice | None,
    callback_url: str | None,
    extra: tuple[str, ...],
    memory_id: str | None,
    wait: bool,
    out: Path | None,
    poll_interval: float,
    wait_timeout: float | None,
) -> None:
    """Edit a completed task's transcript in an editor and render what changed as a new task.

    The editor opens a JSON list, one object per segment (id, start, end, speaker, source, translation):
    change texts, speakers or times and keep the ids. Only the changed fields are sent; a changed source
    is translated again, a changed translation is used as written. An unchanged file sends nothing.

    \b
    mediatrans video edit TASK_ID --editor "code --wait" --wait --out ./subs
    """
    rows = editable_rows(session.client.video.transcript(task_id))
    handle, name = tempfile.mkstemp(prefix="mediatrans-transcript-", suffix=".json")
    path = Path(name)
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(dump_rows(rows))
    keep = False  # once edited, the file is kept until the edits are settled, so no work is lost
    try:
        finished = subprocess.run([*editor_command(editor), str(path)], check=False)
        if finished.returncode != 0:
            message = f"the editor exited with status {finished.returncode}; nothing submitted"
            raise SystemExit(output.fail(message, as_json=session.as_json))
        keep = True
        try:
            edits = changed_fields(rows, path.read_text(encoding="utf-8"))
        except (EditFileError, UnicodeDecodeError) as exc:
            raise SystemExit(output.fail(f"{exc}; nothing submitted", output.EXIT_USAGE, session.as_json)) from None
        if not edits:
            keep = False
            if session.as_json:
                output.emit_json({"task_id": task_id, "edits": []})
            else:
                output.note("nothing changed")
            return
        given = output_choices(output_format, bilingual, dub, dubbing_voice, callback_url) | {"memory_id": memory_id}
        task = _revise(session, task_id, edits, given, extra)
        keep = False
    finally:
        if keep:
            if not session.as_json:
                output.note(f"the edited transcript is kept in {path}")
        else:
            path.unlink(missing_ok=True)
    if not session.as_json:
        output.note(f"{len(edits)} segment(s) changed")
    _show(session, task, wait, out, poll_interval, wait_timeout)
