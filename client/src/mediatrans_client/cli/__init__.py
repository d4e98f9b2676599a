"""The ``mediatrans`` command line (``mediatrans --help``)."""

from mediatrans_client.cli import commands, game_command, grammar_command, video_commands  # noqa: F401  (they register subcommands)
from mediatrans_client.cli.app import cli, main

__all__ = ["cli", "main"]
