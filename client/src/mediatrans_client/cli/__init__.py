"""The ``mediatrans`` command line (``mediatrans --help``)."""

from mediatrans_client.cli import (  # noqa: F401  (they register subcommands)
    add_language_command,
    commands,
    game_command,
    grammar_command,
    memory_commands,
    revision_commands,
    subtitle_commands,
    video_commands,
    video_translate_command,
)
from mediatrans_client.cli.app import cli, main

__all__ = ["cli", "main"]
