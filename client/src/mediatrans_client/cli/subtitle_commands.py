"""``mediatrans subtitles translate FILE --to de[,ja,…]``: translate a subtitle file, keeping its cue times."""

from __future__ import annotations

from pathlib import Path

import click

from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session, cli, handles_errors, pass_session
from mediatrans_client.cli.fields import parse_fields
from mediatrans_client.cli.language_tasks import MAX_TARGETS, show_submission, target_languages
from mediatrans_client.cli.steering import steering_fields, steering_options
from mediatrans_client.cli.video_commands import PRESETS, follow_options
from mediatrans_client.types import Engine, SubtitleFormat, SubtitlePreset

#: The output formats of a subtitle file's translation (``burned_video`` needs a video).
SUBTITLE_FORMATS = ("srt", "vtt", "ass", "all", "ttml", "ebu_tt_d")


@cli.group()
def subtitles() -> None:
    """Subtitle files translated without a video (the tasks are video tasks: `mediatrans video status`)."""


@subtitles.command("translate")
@click.argument("file", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--to",
    "targets",
    required=True,
    metavar="LANGS",
    help=f"Target language code (e.g. de), or several comma-separated (at most {MAX_TARGETS}): a task each.",
)
@click.option("--from", "source_lang", default="auto", show_default=True, metavar="LANG", help="Subtitle language, or auto.")
@click.option("--format", "output_format", type=click.Choice(SUBTITLE_FORMATS), default="srt", show_default=True)
@click.option("--bilingual", is_flag=True, help="Source and translation in every cue.")
@click.option("--engine", type=click.Choice(("standard", "professional")), help="Translation engine.")
@steering_options("Glossary for consistent terms, of the first --to language's pair")
@click.option("--callback-url", metavar="URL", help="Receives a signed POST when each task ends.")
@click.option(
    "--preset", "subtitle_preset", type=click.Choice(PRESETS), help="Timed-text preset (default standard: per language)."
)
@click.option("--max-line-length", "max_subtitle_length", type=int, metavar="CHARS", help="Characters per line.")
@click.option("--max-cue-duration", "subtitle_max_duration", type=float, metavar="SECONDS", help="Longest cue in seconds.")
@click.option("--profanity-filter", is_flag=True, help="Replace offensive words with ***.")
@click.option(
    "-f", "--field", "extra", multiple=True, metavar="NAME=VALUE", help="Any other subtitle output choice (repeatable)."
)
@follow_options
@pass_session
@handles_errors
def translate(
    session: Session,
    file: Path,
    targets: str,
    source_lang: str,
    output_format: SubtitleFormat,
    bilingual: bool,
    engine: Engine | None,
    context: str | None,
    instructions: tuple[str, ...],
    glossaries: tuple[str, ...],
    memory_id: str | None,
    callback_url: str | None,
    subtitle_preset: SubtitlePreset | None,
    max_subtitle_length: int | None,
    subtitle_max_duration: float | None,
    profanity_filter: bool,
    extra: tuple[str, ...],
    wait: bool,
    out: Path | None,
    poll_interval: float,
    wait_timeout: float | None,
) -> None:
    """Translate a subtitle file (SRT, VTT, ASS/SSA or TTML, at most 2 MB): one submission, its cue times kept.

    The first --to language is the submission's task, each other one a task of its own. --wait follows every
    task; --out downloads the files into DIR, or each language's into DIR/<lang>/ when there are several.
    Style choices (subtitle_font, subtitle_position...) go in -f.

    \b
    mediatrans subtitles translate talk.srt --from en --to de,ja --format vtt --out ./subs
    """
    langs = target_languages(targets)
    if not session.as_json and not (wait or out):
        output.note(f"submitting {file} ...")
    task = session.client.subtitles.translate(
        file,
        langs[0],
        source_lang=source_lang,
        additional_target_langs=langs[1:] or None,
        output_format=output_format,
        bilingual=bilingual or None,
        engine=engine,
        **steering_fields(context, instructions, glossaries, memory_id),
        callback_url=callback_url,
        subtitle_preset=subtitle_preset,
        max_subtitle_length=max_subtitle_length,
        subtitle_max_duration=subtitle_max_duration,
        profanity_filter=profanity_filter or None,
        extra=parse_fields(extra),
    )
    show_submission(session, langs, task, wait, out, poll_interval, wait_timeout)
