"""``mediatrans video translate FILE --to es[,fr,…]``: submit a video in one or more languages, follow it, download."""

from __future__ import annotations

from pathlib import Path

import click

from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session, handles_errors, pass_session
from mediatrans_client.cli.fields import parse_fields
from mediatrans_client.cli.language_tasks import MAX_TARGETS, show_submission, target_languages
from mediatrans_client.cli.steering import steering_fields, steering_options
from mediatrans_client.cli.video_commands import FORMATS, PRESETS, VOICES, follow_options, video
from mediatrans_client.types import DubbingVoice, Engine, OutputFormat, SubtitlePreset


@video.command("translate")
@click.argument("source", metavar="FILE_OR_URL")
@click.option(
    "--to",
    "targets",
    required=True,
    metavar="LANGS",
    help=f"Target language code (e.g. es, pt-BR), or several comma-separated (at most {MAX_TARGETS}): a task each.",
)
@click.option("--from", "source_lang", default="auto", show_default=True, metavar="LANG", help="Source language, or auto.")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="srt", show_default=True)
@click.option("--bilingual", is_flag=True, help="Source and translation in every cue.")
@click.option("--engine", type=click.Choice(("standard", "professional")), help="Translation engine.")
@steering_options("Glossary for consistent terms, of the first --to language's pair")
@click.option("--speakers", "diarize", is_flag=True, help="Label speakers ([Speaker 1], ...).")
@click.option("--speaker-count", type=click.IntRange(1, 20), help="Expected number of speakers.")
@click.option("--dub", is_flag=True, help="Replace the audio with synthesized speech of the translation.")
@click.option("--voice", "dubbing_voice", type=click.Choice(VOICES), help="Dubbing voice.")
@click.option("--callback-url", metavar="URL", help="Receives a signed POST when the task ends.")
@click.option(
    "--preset", "subtitle_preset", type=click.Choice(PRESETS), help="Timed-text preset (default standard: per language)."
)
@click.option(
    "--subtitles",
    "subtitle_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The video's own subtitles (SRT, VTT, ASS, TTML or a transcript JSON), used instead of speech recognition.",
)
@click.option("-f", "--field", "extra", multiple=True, metavar="NAME=VALUE", help="Any other contract field (repeatable).")
@follow_options
@pass_session
@handles_errors
def translate(
    session: Session,
    source: str,
    targets: str,
    source_lang: str,
    output_format: OutputFormat,
    bilingual: bool,
    engine: Engine | None,
    context: str | None,
    instructions: tuple[str, ...],
    glossaries: tuple[str, ...],
    memory_id: str | None,
    diarize: bool,
    speaker_count: int | None,
    dub: bool,
    dubbing_voice: DubbingVoice | None,
    callback_url: str | None,
    subtitle_preset: SubtitlePreset | None,
    subtitle_file: Path | None,
    extra: tuple[str, ...],
    wait: bool,
    out: Path | None,
    poll_interval: float,
    wait_timeout: float | None,
) -> None:
    """Translate a video file (uploaded, streamed) or an http(s) URL into subtitles, burned video or a dub.

    With several --to languages the video is recognized once: the first language is the submission's task, each
    other one a task of its own. --wait then follows every task, and --out downloads each language's files into
    DIR/<lang>/.

    \b
    mediatrans video translate talk.mp4 --to es --format all --wait --out ./subs
    mediatrans video translate talk.mp4 --to es,fr,de --subtitles talk.en.srt --out ./subs
    mediatrans video translate trailer.mp4 --to es --context "Fantasy RPG trailer" --instruction "Use informal tú" --memory ID
    """
    if not source.startswith(("http://", "https://")) and not Path(source).is_file():
        raise click.BadParameter(f"no such file: {source}", param_hint="FILE_OR_URL")
    langs = target_languages(targets)
    if not session.as_json and not (wait or out):
        output.note(f"submitting {source} ...")
    task = session.client.video.translate(
        source,
        target_lang=langs[0],
        additional_target_langs=langs[1:] or None,
        subtitle_file=subtitle_file,
        source_lang=source_lang,
        output_format=output_format,
        bilingual=bilingual or None,
        engine=engine,
        **steering_fields(context, instructions, glossaries, memory_id),
        enable_diarization=diarize or None,
        speaker_count=speaker_count,
        enable_dubbing=dub or None,
        dubbing_voice=dubbing_voice,
        callback_url=callback_url,
        subtitle_preset=subtitle_preset,
        extra=parse_fields(extra),
    )
    show_submission(session, langs, task, wait, out, poll_interval, wait_timeout)
