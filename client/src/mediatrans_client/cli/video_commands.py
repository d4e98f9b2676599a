"""``mediatrans video``: follow a task with a live progress bar, show it, download its results.

The group's other commands: ``translate`` (video_translate_command.py), ``transcript``, ``revise`` and ``edit``
(revision_commands.py), ``add-language`` (add_language_command.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from mediatrans_client._sync_resources import DEFAULT_POLL_INTERVAL_S
from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session, cli, handles_errors, pass_session
from mediatrans_client.models import Task

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("srt", "vtt", "ass", "burned_video", "all", "ttml", "ebu_tt_d")
PRESETS = ("standard", "broadcast", "legacy")
VOICES = ("default-female", "default-male", "professional-female", "professional-male", "original")


@cli.group()
def video() -> None:
    """Video translation: subtitles, burned-in subtitles, dubbing."""


class ProgressBar:
    """A rich progress bar fed by task records: stage, percent, the server's estimate of the time left."""

    def __init__(self, enabled: bool) -> None:
        self._progress = Progress(
            TextColumn("{task.description:<12}"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[eta]}"),
            TimeElapsedColumn(),
            console=output.stderr,
            disable=not enabled,
            transient=False,
        )
        self._bar: Any = None

    def __enter__(self) -> ProgressBar:
        self._progress.__enter__()
        self._bar = self._progress.add_task("queued", total=100, eta="")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._progress.__exit__(None, None, None)

    def update(self, task: Task) -> None:
        stage = task.status if task.status in ("queued", "completed", "failed", "expired") else (task.stage or task.status)
        left = task.estimated_seconds
        eta = f"ETA {_duration(left)}" if left is not None and not task.is_final else ""
        self._progress.update(self._bar, completed=task.progress or 0, description=stage, eta=eta)


def _duration(seconds: int) -> str:
    minutes, secs = divmod(max(0, int(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def follow_task(session: Session, task: Task, poll_interval: float, timeout: float | None, out: Path | None) -> None:
    """Wait with a progress bar (on a terminal, without ``--json``), download into ``out``, print the outcome."""
    show_bar = not session.as_json and output.stderr.is_terminal
    with ProgressBar(show_bar) as bar:
        bar.update(task)
        done = session.client.video.wait(task.task_id, on_progress=bar.update, poll_interval=poll_interval, timeout=timeout)
    files = session.client.video.download(done, out) if out is not None else []
    print_task(session, done, files)


def print_task(session: Session, task: Task, files: list[Path] | None = None) -> None:
    if session.as_json:
        record = task.model_dump(mode="json", exclude_none=True)
        if files is not None:
            record["downloaded"] = [str(path) for path in files]
        output.emit_json(record)
        return
    output.say(f"task      {task.task_id}")
    output.say(f"status    {task.status}" + (f" ({task.stage}, {task.progress}%)" if task.stage and not task.is_final else ""))
    if task.estimated_seconds is not None and not task.is_final:
        output.say(f"time left ~{_duration(task.estimated_seconds)}")
    if task.result is not None:
        for kind, url in task.result.download_urls().items():
            output.say(f"{kind:<9} {url}")
        qc = task.result.qc_summary()
        if qc:
            output.say(f"qc        {qc}")
    if task.error:
        output.say(f"error     {task.error}")
    for path in files or []:
        output.say(f"saved     {path}")


def follow_options(command: F) -> F:
    """``--wait``, ``--out``, ``--poll-interval`` and ``--wait-timeout``, shared by the commands that follow a task."""
    options = (
        click.option("--wait", is_flag=True, help="Follow the task to the end with a progress bar."),
        click.option(
            "-o", "--out", type=click.Path(file_okay=False, path_type=Path), help="Download the results here (implies --wait)."
        ),
        click.option("--poll-interval", type=click.FloatRange(min=1), default=DEFAULT_POLL_INTERVAL_S, show_default=True),
        click.option("--wait-timeout", type=click.FloatRange(min=1), help="Give up waiting after this many seconds."),
    )
    for option in reversed(options):
        command = option(command)
    return command


@video.command("status")
@click.argument("task_id")
@follow_options
@pass_session
@handles_errors
def status(
    session: Session, task_id: str, wait: bool, out: Path | None, poll_interval: float, wait_timeout: float | None
) -> None:
    """Show a task (status, stage, progress, result links); exit 9 when it failed or expired."""
    task = session.client.video.get(task_id)
    if wait or out is not None:
        follow_task(session, task, poll_interval, wait_timeout, out)
        return
    print_task(session, task)
    if task.status in ("failed", "expired"):
        raise SystemExit(output.EXIT_TASK_FAILED)


@video.command("download")
@click.argument("task_id")
@click.option("-o", "--out", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True)
@pass_session
@handles_errors
def download(session: Session, task_id: str, out: Path) -> None:
    """Download every result file of a completed task."""
    task = session.client.video.get(task_id)
    if task.status != "completed":
        raise SystemExit(output.fail(f"task {task_id} is {task.status}, not completed", output.EXIT_INVALID, session.as_json))
    files = session.client.video.download(task, out)
    print_task(session, task, files)
