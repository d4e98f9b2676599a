"""``mediatrans grammar check FILE``: issues shown at their line with a caret, or the corrected text written out.

Files longer than one request (50,000 characters) are checked in pieces cut at paragraph or line
breaks; offsets are mapped back to the whole file.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session, cli, handles_errors, pass_session
from mediatrans_client.models import GrammarIssue

MAX_CHARS = 50_000
CHECK_TYPES = ("spelling", "grammar", "punctuation", "style", "wordiness")


def pieces(text: str, limit: int = MAX_CHARS) -> Iterator[tuple[int, str]]:
    """``(offset, piece)`` covering ``text`` in order, each at most ``limit`` characters.

    A piece ends at the last blank line before the limit, else the last line break, else a space,
    else exactly at the limit, so sentences are rarely split.
    """
    start = 0
    while start < len(text):
        end = min(len(text), start + limit)
        if end < len(text):
            window = text[start:end]
            for separator in ("\n\n", "\n", " "):
                cut = window.rfind(separator)
                if cut > 0:
                    end = start + cut + len(separator)
                    break
        yield start, text[start:end]
        start = end


@dataclass(frozen=True)
class Located:
    issue: GrammarIssue
    offset: int  # in the whole text
    line: int  # 1-based
    column: int  # 1-based


def locate(text: str, issue: GrammarIssue, base: int) -> Located:
    offset = base + issue.offset
    line_start = text.rfind("\n", 0, offset) + 1
    return Located(issue, offset, text.count("\n", 0, offset) + 1, offset - line_start + 1)


def render(text: str, found: Located, name: str) -> list[str]:
    """``file:line:col: type [severity] message (rule)``, the line, a caret under the segment, the suggestion."""
    issue = found.issue
    line_start = found.offset - (found.column - 1)
    line_end = text.find("\n", line_start)
    line = text[line_start : line_end if line_end >= 0 else len(text)].expandtabs(1)
    width = max(1, min(issue.length, len(line) - (found.column - 1)))
    rule = f" ({issue.rule_id})" if issue.rule_id else ""
    lines = [
        f"{name}:{found.line}:{found.column}: {issue.type} [{issue.severity or 'warning'}] {issue.message or ''}{rule}",
        f"    {line}",
        "    " + " " * (found.column - 1) + "^" * width,
    ]
    if issue.correct is not None:
        lines.append(f"    suggestion: {issue.correct!r}")
    return lines


@cli.group()
def grammar() -> None:
    """Grammar, spelling, punctuation and style checks."""


@grammar.command("check")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path))
@click.option("--lang", metavar="LANG", help="Language code (detected when omitted).")
@click.option("--fix", is_flag=True, help="Write the corrected text (stdout, -o FILE or --in-place) instead of the issues.")
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), help="With --fix: write here.")
@click.option("--in-place", is_flag=True, help="With --fix: overwrite FILE.")
@click.option("--types", "check_types", metavar="LIST", help=f"Comma-separated subset of {', '.join(CHECK_TYPES)}.")
@click.option("--severity", type=click.Choice(("info", "warning", "error")), help="Lowest severity shown (default warning).")
@click.option("--disable", "disable_rules", metavar="RULES", help="Comma-separated rule ids to skip.")
@click.option("--domain", type=click.Choice(("general", "academic", "business", "casual")))
@click.option("--strict", is_flag=True, help="Exit 1 when any issue is found (for CI).")
@pass_session
@handles_errors
def check(
    session: Session,
    file: Path,
    lang: str | None,
    fix: bool,
    out: Path | None,
    in_place: bool,
    check_types: str | None,
    severity: str | None,
    disable_rules: str | None,
    domain: str | None,
    strict: bool,
) -> None:
    """Check FILE ('-' for stdin): issues with the line and a caret, or (--fix) the corrected text."""
    if (out or in_place) and not fix:
        raise click.UsageError("-o/--in-place write corrected text: add --fix")
    if in_place and str(file) == "-":
        raise click.UsageError("--in-place needs a file, not stdin")
    text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    options: dict[str, Any] = {
        "auto_correct": fix or None,
        "check_types": _split(check_types),
        "severity": severity,
        "disable_rules": _split(disable_rules),
        "domain": domain,
    }
    options = {name: value for name, value in options.items() if value is not None}
    found: list[Located] = []
    corrected: list[str] = []
    detected: str | None = lang
    scores: list[tuple[float, int]] = []
    for base, piece in pieces(text):
        if not piece.strip():
            corrected.append(piece)
            continue
        result = session.client.grammar.check(piece, detected, **options)
        detected = detected or result.lang  # later pieces use the first piece's language
        found.extend(locate(text, issue, base) for issue in result.issues)
        corrected.append(result.corrected if result.corrected is not None else piece)
        if result.quality_score is not None:
            scores.append((result.quality_score, len(piece)))
    score = round(sum(s * n for s, n in scores) / sum(n for _, n in scores), 1) if scores else 100.0
    fixed = "".join(corrected)
    if fix and not (session.as_json and out is None and not in_place):
        _write_fixed(fixed, file, out, in_place)
    name = "<stdin>" if str(file) == "-" else str(file)
    if session.as_json:
        issues = [
            {**f.issue.model_dump(mode="json", exclude_none=True), "offset": f.offset, "line": f.line, "column": f.column}
            for f in found
        ]
        record = {"file": name, "lang": detected, "quality_score": score, "issues_count": len(found), "issues": issues}
        if fix:
            record["corrected"] = fixed
        output.emit_json(record)
    elif not fix or out or in_place:
        for item in found:
            for line in render(text, item, name):
                output.say(line)
        output.note(f"{len(found)} issue(s), quality {score}/100, language {detected}")
    if strict and found:
        raise SystemExit(output.EXIT_FAILURE)


def _split(value: str | None) -> list[str] | None:
    return [part.strip() for part in value.split(",") if part.strip()] if value else None


def _write_fixed(text: str, file: Path, out: Path | None, in_place: bool) -> None:
    target = file if in_place else out
    if target is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    partial = target.with_name(target.name + ".part")
    partial.write_text(text, encoding="utf-8")
    partial.replace(target)
    output.note(f"wrote {target}")
