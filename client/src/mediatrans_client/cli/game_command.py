"""``mediatrans game localize FILE``: translate a PO / XLIFF / JSON / CSV string file into several languages."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session, cli, handles_errors, pass_session
from mediatrans_client.cli.steering import steering_fields, steering_options
from mediatrans_client.file_localization import MAX_REQUEST_CHARS, FileLocalizer, LocalizationReport
from mediatrans_client.l10n import UnsupportedFileError, load
from mediatrans_client.types import ContentType, Tone

CONTENT_TYPES = ("ui", "dialogue", "item_desc", "skill", "story", "tutorial")
TONES = ("epic", "humorous", "dark", "cute")


@cli.group()
def game() -> None:
    """Game text localization."""


def _targets(value: str) -> list[str]:
    codes = [code.strip() for code in value.split(",") if code.strip()]
    if not codes:
        raise click.BadParameter("give at least one language code", param_hint="--to")
    return list(dict.fromkeys(codes))


@game.command("localize")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--from", "source_lang", required=True, metavar="LANG", help="Language of the file's source text.")
@click.option("--to", "targets", required=True, metavar="LANGS", help="Comma-separated target codes, e.g. es,fr,de.")
@click.option("-o", "--out", type=click.Path(file_okay=False, path_type=Path), default=Path("l10n-out"), show_default=True)
@click.option("--content-type", type=click.Choice(CONTENT_TYPES), default="ui", show_default=True)
@click.option("--genre", metavar="GENRE", help="rpg, fps, moba, casual, strategy, ...")
@click.option("--tone", type=click.Choice(TONES))
@click.option("--max-length", type=click.IntRange(1, MAX_REQUEST_CHARS), help="Limit for strings the file gives none.")
@steering_options("Glossary whose terms are enforced")
@click.option("--batch-chars", type=click.IntRange(1, MAX_REQUEST_CHARS), default=MAX_REQUEST_CHARS, show_default=True)
@click.option("--concurrency", type=click.IntRange(1, 16), default=4, show_default=True, help="Requests in flight.")
@click.option("--dry-run", is_flag=True, help="Read the file and print the plan (requests, billed characters); send nothing.")
@pass_session
@handles_errors
def localize(
    session: Session,
    file: Path,
    source_lang: str,
    targets: str,
    out: Path,
    content_type: ContentType,
    genre: str | None,
    tone: Tone | None,
    max_length: int | None,
    context: str | None,
    instructions: tuple[str, ...],
    glossaries: tuple[str, ...],
    memory_id: str | None,
    batch_chars: int,
    concurrency: int,
    dry_run: bool,
) -> None:
    """Translate FILE (.po .pot .xlf .xliff .json .arb .csv .tsv) into every --to language, under --out.

    \b
    mediatrans game localize strings.po --from en --to es,fr,de --genre rpg --tone epic -o out/

    Keys, comments, plural forms and untranslatable flags are kept; strings cut to fit a
    max_length are listed at the end, and with --memory how many texts the memory answered.
    A target the service refuses (unsupported language) is reported on stderr and the others
    are still written: exit 11 then; exit 5 when none is served.
    """
    target_langs = _targets(targets)
    try:
        catalog = load(file, source_lang)
    except UnsupportedFileError as exc:
        raise SystemExit(output.fail(str(exc), output.EXIT_INVALID, session.as_json)) from None
    localizer = FileLocalizer(
        session.client.game if not dry_run else _NoCalls(),
        source_lang,
        target_langs,
        content_type=content_type,
        max_length=max_length,
        max_chars=batch_chars,
        concurrency=concurrency,
        genre=genre,
        tone=tone,
        **steering_fields(context, instructions, glossaries, memory_id),
    )
    if dry_run:
        _print_plan(session, catalog, localizer)
        return
    show_bar = not session.as_json and output.stderr.is_terminal
    columns = (TextColumn("translating"), BarColumn(), TaskProgressColumn(), TimeRemainingColumn())
    with Progress(*columns, console=output.stderr, disable=not show_bar) as progress:
        bar = progress.add_task("translating", total=None)
        report = localizer.run(catalog, lambda done, total: progress.update(bar, completed=done, total=total))
    if not report.translations:  # every target refused: nothing to write
        raise SystemExit(_report_all_refused(session, report))
    try:
        files = catalog.write(out, report.translations)
    except ValueError as exc:  # e.g. a target language whose plural rule is unknown
        raise SystemExit(output.fail(f"cannot write {file.name}: {exc}", output.EXIT_INVALID, session.as_json)) from None
    _print_report(session, report, files)
    if report.failed:
        raise SystemExit(output.EXIT_PARTIAL)


class _NoCalls:
    def localize(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - a dry run never translates
        raise AssertionError("dry run")


def _print_plan(session: Session, catalog: Any, localizer: FileLocalizer) -> None:
    report, batches = localizer.plan(catalog)
    characters = sum(len(s.text) for batch in batches for s in batch)
    plan = {
        "file": str(catalog.path),
        "entries": len(catalog.entries),
        "translatable": report.strings,
        "unique_texts": sum(len(batch) for batch in batches),
        "requests": len(batches),
        "characters": characters,
        "billed_characters": characters * len(localizer.target_langs),
        "targets": localizer.target_langs,
        "skipped": [{"key": key, "reason": reason} for key, reason in report.skipped],
    }
    if session.as_json:
        output.emit_json(plan)
        return
    for name, value in plan.items():
        output.say(f"{name:<18} {value}")


def _failures(report: LocalizationReport) -> list[dict[str, Any]]:
    return [{"lang": lang, **output.error_record(exc)} for lang, exc in report.failed.items()]


def _note_refusals(report: LocalizationReport) -> None:
    for lang, exc in report.failed.items():
        facts = ", ".join(
            f for f in (f"code {exc.code}" if exc.code is not None else "", f"HTTP {exc.status}" if exc.status else "") if f
        )
        output.note(f"error: {lang} not localized: {exc.message}" + (f" ({facts})" if facts else ""))


def _report_all_refused(session: Session, report: LocalizationReport) -> int:
    """Every target was refused: each one's error on stderr; the exit code of the first."""
    first = next(iter(report.failed.values()))
    code = output.exit_code_for(first)
    if session.as_json:
        record = {**output.error_record(first), "message": "No target language could be localized.", "failed": _failures(report)}
        sys.stderr.write(json.dumps({"error": record}, ensure_ascii=False) + "\n")
        return code
    _note_refusals(report)
    output.note("error: no target language could be localized; nothing was written")
    return code


def _print_report(session: Session, report: LocalizationReport, files: list[Path]) -> None:
    hits = [
        {"key": h.key, "lang": h.lang, "max_length": h.max_length, "source": h.source, "translation": h.translation}
        for h in report.shortened
    ]
    if session.as_json:
        output.emit_json(
            {
                "files": [str(path) for path in files],
                "strings": report.strings,
                "untranslatable": report.untranslatable,
                "requests": report.requests,
                "characters": report.characters,
                "billed_characters": report.billed_characters,
                "targets": report.succeeded,
                "failed": _failures(report),
                "shortened": hits,
                "from_memory": report.from_memory,
                "skipped": [{"key": key, "reason": reason} for key, reason in report.skipped],
            }
        )
        return
    for path in files:
        output.say(f"wrote {path}")
    output.note(
        f"{report.strings} strings ({report.untranslatable} untranslatable kept) in {report.requests} requests, "
        f"{report.characters:,} characters x {len(report.succeeded)} languages"
    )
    if report.from_memory:
        counts = ", ".join(f"{lang} {n}" for lang, n in report.from_memory.items())
        output.note(f"texts answered from the memory: {counts}")
    if hits:
        output.note(f"{len(hits)} translation(s) cut to fit max_length:")
        for hit in hits:
            output.note(f"  {hit['key']} [{hit['lang']}] (max {hit['max_length']}): {hit['translation']}")
    for key, reason in report.skipped:
        output.note(f"skipped {key}: {reason}")
    _note_refusals(report)
