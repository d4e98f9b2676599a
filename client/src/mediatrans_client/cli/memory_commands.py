"""``mediatrans memories``: translation memories (create, list, show, add, remove, delete)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import IO, Any

import click
from rich.table import Table
from rich.text import Text

from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session, cli, handles_errors, pass_session
from mediatrans_client.models import Memory, MemoryEntriesResult, MemoryEntry

#: Header rows a pairs file may start with (case aside), skipped; so is one naming the two languages.
HEADERS = {("source", "target"), ("src", "tgt")}


@cli.group()
def memories() -> None:
    """Translation memories: approved pairs of one language pair that guide later translations (--memory ID)."""


def read_pairs(handle: IO[str], langs: tuple[str, str] | None = None) -> list[tuple[str, str]]:
    """Two columns per line, source then target, as the service reads a memory file: tab-separated (quotes are
    text), or CSV when the name ends ``.csv`` (``;``-separated when the first line has semicolons and no comma).
    Blank lines and a header row (``source``/``target``, ``src``/``tgt``, or the two language codes) are skipped."""
    text = handle.read()
    first = text.split("\n", 1)[0]
    if str(getattr(handle, "name", "") or "").lower().endswith(".csv"):
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=";" if ";" in first and "," not in first else ",")
    else:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    headers = HEADERS | ({(langs[0].casefold(), langs[1].casefold())} if langs else set())
    pairs: list[tuple[str, str]] = []
    for row in reader:
        cells = [cell.strip() for cell in row]
        while cells and not cells[-1]:
            cells.pop()
        if not cells or (not pairs and tuple(cell.casefold() for cell in cells) in headers):
            continue
        if len(cells) != 2 or not all(cells):
            raise click.BadParameter(f"line {reader.line_num}: expected 2 columns (source, target), found {len(cells)}")
        pairs.append((cells[0], cells[1]))
    return pairs


def _pairs_option(hint: str, handle: IO[str], langs: tuple[str, str] | None = None) -> list[tuple[str, str]]:
    try:
        return read_pairs(handle, langs)
    except click.BadParameter as exc:
        raise click.BadParameter(exc.message, param_hint=hint) from None


def _memory_rows(items: list[Memory]) -> Table:
    table = Table("memory_id", "name", "from", "to", "entries", "revision", "updated", box=None, header_style="bold")
    for item in items:
        table.add_row(
            item.memory_id,
            Text(item.name or ""),
            item.source_lang or "",
            item.target_lang or "",
            "" if item.entry_count is None else f"{item.entry_count:,}",
            "" if item.revision is None else str(item.revision),
            item.updated_at or "",
        )
    return table


def _entry_rows(entries: list[MemoryEntry]) -> Table:
    table = Table("source", "target", box=None, header_style="bold")
    for entry in entries:
        table.add_row(Text(entry.source), Text(entry.target))  # as written: "[b]" is text, not markup
    return table


def _show(session: Session, item: Memory) -> None:
    if session.as_json:
        output.emit_json(item)
        return
    output.stdout.print(_memory_rows([item]))
    if item.description:
        output.say(f"description  {item.description}")


def _show_change(session: Session, memory_id: str, result: MemoryEntriesResult) -> None:
    if session.as_json:
        output.emit_json(result)
        return
    counts = ((name, getattr(result, name)) for name in ("added", "replaced", "unchanged", "deleted"))
    output.say(f"{memory_id}: " + (", ".join(f"{name} {n}" for name, n in counts if n is not None) or "entries replaced"))
    if result.memory is not None and result.memory.entry_count is not None:
        output.note(f"{result.memory.entry_count:,} entries")


@memories.command("create")
@click.argument("name")
@click.option("--from", "source_lang", required=True, metavar="LANG", help="Source language of the pairs.")
@click.option("--to", "target_lang", required=True, metavar="LANG", help="Target language of the pairs.")
@click.option(
    "--file",
    "file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A TMX, XLIFF, CSV or TSV file, uploaded as it is (the service reads it).",
)
@click.option(
    "--pairs",
    type=click.File("r", encoding="utf-8-sig"),
    help="source<TAB>target lines ('-': stdin; a .csv file: two columns), read here and sent as pairs.",
)
@click.option("--description", help="Free text.")
@pass_session
@handles_errors
def create(
    session: Session,
    name: str,
    source_lang: str,
    target_lang: str,
    file: Path | None,
    pairs: IO[str] | None,
    description: str | None,
) -> None:
    """Create a translation memory NAME for one language pair, from a file or from pairs (neither: empty).

    \b
    mediatrans memories create game-ui --from en --to es --file ui.tmx
    mediatrans memories create game-ui --from en --to es --pairs pairs.tsv
    """
    if file is not None and pairs is not None:
        raise click.UsageError("give --file or --pairs, not both")
    entries = _pairs_option("--pairs", pairs, (source_lang, target_lang)) if pairs is not None else None
    item = session.client.memories.create(name, source_lang, target_lang, entries=entries, file=file, description=description)
    _show(session, item)


@memories.command("list")
@pass_session
@handles_errors
def list_memories(session: Session) -> None:
    """List the account's translation memories (every page)."""
    items = list(session.client.memories.iter_all())
    if session.as_json:
        output.emit_json({"memories": [m.model_dump(mode="json", exclude_none=True) for m in items], "total": len(items)})
        return
    output.stdout.print(_memory_rows(items))
    output.note(f"{len(items)} memories")


@memories.command("show")
@click.argument("memory_id")
@click.option("--all", "every", is_flag=True, help="Every entry, page by page (default: the first page).")
@pass_session
@handles_errors
def show(session: Session, memory_id: str, every: bool) -> None:
    """Show a translation memory and its entries."""
    item = session.client.memories.get(memory_id)
    if every and item.next_cursor:
        entries = list(session.client.memories.iter_entries(memory_id))
        item = item.model_copy(update={"entries": entries, "next_cursor": None})
    if session.as_json:
        output.emit_json(item)
        return
    _show(session, item)
    output.stdout.print(_entry_rows(item.entries or []))
    if item.next_cursor:
        output.note(f"{len(item.entries or [])} entries shown; --all shows every one")


@memories.command("add")
@click.argument("memory_id")
@click.option(
    "--source", "sources", multiple=True, metavar="TEXT", help="Source text of a pair (repeatable, each with --target)."
)
@click.option("--target", "targets", multiple=True, metavar="TEXT", help="Its approved translation.")
@click.option(
    "--file", "pairs", type=click.File("r", encoding="utf-8-sig"), help="source<TAB>target lines ('-': stdin; .csv: two columns)."
)
@click.option("--replace-all", is_flag=True, help="With --file: the file's pairs replace every entry of the memory.")
@pass_session
@handles_errors
def add(
    session: Session,
    memory_id: str,
    sources: tuple[str, ...],
    targets: tuple[str, ...],
    pairs: IO[str] | None,
    replace_all: bool,
) -> None:
    """Add pairs to a memory; a pair whose source it already holds replaces that entry.

    \b
    mediatrans memories add MEMORY_ID --source "quest log" --target "diario de misiones"
    mediatrans memories add MEMORY_ID --file more.tsv
    """
    if len(sources) != len(targets):
        raise click.UsageError("give each --source with its --target")
    entries: list[Any] = list(zip(sources, targets))
    if pairs is not None:
        entries += _pairs_option("--file", pairs)
    if replace_all and (pairs is None or sources):
        raise click.UsageError("--replace-all takes the pairs of --file alone")
    if not entries and not replace_all:
        raise click.UsageError("give --source/--target pairs or --file")
    memories_api = session.client.memories
    result = memories_api.replace_entries(memory_id, entries) if replace_all else memories_api.add_entries(memory_id, entries)
    _show_change(session, memory_id, result)


@memories.command("remove")
@click.argument("memory_id")
@click.option(
    "--source", "sources", multiple=True, required=True, metavar="TEXT", help="Source of an entry to remove (repeatable)."
)
@pass_session
@handles_errors
def remove(session: Session, memory_id: str, sources: tuple[str, ...]) -> None:
    """Remove the entries with these sources from a memory."""
    _show_change(session, memory_id, session.client.memories.delete_entries(memory_id, sources))


@memories.command("delete")
@click.argument("memory_id")
@click.option("-y", "--yes", is_flag=True, help="Do not ask.")
@pass_session
@handles_errors
def delete(session: Session, memory_id: str, yes: bool) -> None:
    """Delete a translation memory and every entry (irreversible)."""
    if not yes and not session.as_json:
        click.confirm(f"Delete memory {memory_id}?", abort=True)
    deleted = session.client.memories.delete(memory_id)
    if session.as_json:
        output.emit_json({"memory_id": memory_id, "deleted": deleted})
    else:
        output.say(f"deleted {memory_id}")
