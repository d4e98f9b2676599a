"""``--context``, ``--instruction``, ``--glossary`` and ``--memory``: the options that steer a translation
(``video translate``, ``video add-language``, ``subtitles translate``, ``game localize``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

#: What one request takes at most (the service refuses more); checked before anything is sent, like ``--to``.
MAX_INSTRUCTIONS = 10
MAX_GLOSSARIES = 5


def steering_options(glossary_help: str) -> Callable[[F], F]:
    """The four options; ``glossary_help`` says whose glossary a command's ``--glossary`` is."""
    options = (
        click.option(
            "--context",
            metavar="TEXT",
            help="What the text is: product, scene, audience (not translated, not billed); '@FILE' reads a file.",
        ),
        click.option(
            "--instruction",
            "instructions",
            multiple=True,
            metavar="TEXT",
            help=f"An instruction for the translator, e.g. 'Use informal tú' (repeatable, at most {MAX_INSTRUCTIONS}).",
        ),
        click.option(
            "--glossary",
            "glossaries",
            multiple=True,
            metavar="ID",
            help=f"{glossary_help} (repeatable, at most {MAX_GLOSSARIES}).",
        ),
        click.option(
            "--memory",
            "memory_id",
            metavar="ID",
            help="Translation memory: its closest pairs guide the translation, an exact match is used as it is.",
        ),
    )

    def decorate(command: F) -> F:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def steering_fields(
    context: str | None, instructions: Sequence[str], glossaries: Sequence[str], memory_id: str | None
) -> dict[str, Any]:
    """The options as keyword arguments of the client's methods (``None``: not given, not sent).

    One ``--glossary`` is sent as ``glossary_id``, as before; several as ``glossary_ids``.
    """
    if context is not None and context.startswith("@"):
        try:
            context = Path(context[1:]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise click.BadParameter(f"cannot read {context[1:]}: {exc}", param_hint="--context") from None
    if len(instructions) > MAX_INSTRUCTIONS:
        raise click.BadParameter(f"at most {MAX_INSTRUCTIONS} instructions, got {len(instructions)}", param_hint="--instruction")
    unique = list(dict.fromkeys(glossaries))
    if len(unique) > MAX_GLOSSARIES:
        raise click.BadParameter(f"at most {MAX_GLOSSARIES} glossaries, got {len(unique)}", param_hint="--glossary")
    return {
        "context": context,
        "instructions": list(instructions) or None,
        "glossary_id": unique[0] if len(unique) == 1 else None,
        "glossary_ids": unique if len(unique) > 1 else None,
        "memory_id": memory_id,
    }
