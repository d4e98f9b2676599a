"""``mediatrans languages | tts | voice | account``: the small request-and-print commands."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from mediatrans_client.cli import output
from mediatrans_client.cli.app import Session, cli, handles_errors, pass_session
from mediatrans_client.cli.fields import parse_fields
from mediatrans_client.models import Voice
from mediatrans_client.types import AudioFormat, Emotion, VoiceGender

AUDIO_FORMATS = ("mp3", "wav", "ogg", "flac", "pcm")
EMOTIONS = ("neutral", "happy", "sad", "angry", "excited", "calm", "fearful", "surprised")


def _yes(value: bool | None) -> str:
    return "" if value is None else ("yes" if value else "-")


@cli.command()
@click.option("--source", metavar="LANG", help="Only targets reachable from this source language.")
@click.option("--target", metavar="LANG", help="Only sources that reach this target language.")
@click.option("--type", "kind", metavar="TYPE", help="Filter by type (contract 4.8).")
@click.option("--refresh", is_flag=True, help="Revalidate the cached list now (it is cached 24 h with its ETag).")
@pass_session
@handles_errors
def languages(session: Session, source: str | None, target: str | None, kind: str | None, refresh: bool) -> None:
    """List the supported languages (cached on disk for 24 h)."""
    result = session.client.languages(source, target=target, type=kind, refresh=refresh)
    if session.as_json:
        output.emit_json(result)
        return
    table = Table("code", "name", "English name", "speech", "glossary", box=None, header_style="bold")
    for language in result.languages:
        table.add_row(
            language.code,
            language.name or "",
            language.name_en or "",
            _yes(language.supports_speech),
            _yes(language.supports_glossary),
        )
    output.stdout.print(table)
    output.note(f"{result.total} languages")


@cli.command()
@click.argument("text")
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    help="Audio file to write; '-' writes the audio to stdout. Default: stdout when it is not a terminal.",
)
@click.option("--voice", metavar="ID", help="Native voice id (`mediatrans voice list --native`) or a cloned voice_id.")
@click.option("--lang", metavar="LANG", help="Language (required without --voice).")
@click.option("--emotion", type=click.Choice(EMOTIONS), help="Emotion (default neutral).")
@click.option("--intensity", "emotion_intensity", type=click.FloatRange(0, 1), help="Emotion intensity 0-1.")
@click.option("--speed", type=click.FloatRange(0.5, 2.0), help="Speaking rate 0.5-2.0.")
@click.option("--format", "output_format", type=click.Choice(AUDIO_FORMATS), help="Default: from the -o suffix, else mp3.")
@click.option("-f", "--field", "extra", multiple=True, metavar="NAME=VALUE", help="Any other request field (repeatable).")
@pass_session
@handles_errors
def tts(
    session: Session,
    text: str,
    out: Path | None,
    voice: str | None,
    lang: str | None,
    emotion: Emotion | None,
    emotion_intensity: float | None,
    speed: float | None,
    output_format: AudioFormat | None,
    extra: tuple[str, ...],
) -> None:
    """Speak TEXT ('-' reads stdin; '@FILE' reads a file) into an audio file, or to stdout, streamed.

    \b
    mediatrans tts "Your order has shipped." --voice en-us-female -o out.mp3
    mediatrans tts "Hello." --lang en -o - | ffprobe -
    """
    if text == "-":
        text = sys.stdin.read()
    elif text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8")
    if out is None and sys.stdout.isatty():
        raise click.UsageError("stdout is a terminal: give -o FILE, or -o - to write the audio there anyway")
    target = None if out is None or str(out) == "-" else out
    suffix = target.suffix.lower().lstrip(".") if target is not None else ""
    fmt = output_format or (suffix if suffix in AUDIO_FORMATS else "mp3")
    fields: dict[str, Any] = {
        "lang": lang,
        "emotion": emotion,
        "emotion_intensity": emotion_intensity,
        "speed": speed,
        "output_format": fmt,
        "extra": parse_fields(extra),
    }
    if target is None:
        _write_stdout(session.client.tts.stream(text, voice, **fields))
        return
    path = session.client.tts.synthesize(text, voice, target, **fields)
    if session.as_json:
        output.emit_json({"path": str(path), "bytes": path.stat().st_size, "format": fmt})
    else:
        output.say(f"saved {path} ({path.stat().st_size:,} bytes, {fmt})")


def _write_stdout(chunks: Iterator[bytes]) -> None:
    """Each chunk to stdout as it arrives, flushed; nothing else goes there. A reader that goes away ends it quietly."""
    sink = sys.stdout.buffer
    try:
        for chunk in chunks:
            sink.write(chunk)
            sink.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sink.fileno())  # no second error when Python flushes at exit
        raise SystemExit(output.EXIT_BROKEN_PIPE) from None
    finally:
        if isinstance(chunks, Generator):
            chunks.close()  # the connection is released even when the reader went away


@cli.group()
def voice() -> None:
    """Cloned voices: clone, list, show, rename, delete."""


def _voice_rows(voices: list[Voice]) -> Table:
    table = Table("voice_id", "name", "lang", "status", "quality", "sample s", "created", box=None, header_style="bold")
    for item in voices:
        quality = f"{item.quality_score:.0f}" if item.quality_score is not None else ""
        seconds = f"{item.sample_duration:.1f}" if item.sample_duration is not None else ""
        table.add_row(
            item.voice_id, item.voice_name or "", item.lang or "", item.status or "", quality, seconds, item.created_at or ""
        )
    return table


def _show_voice(session: Session, item: Voice) -> None:
    if session.as_json:
        output.emit_json(item)
    else:
        output.stdout.print(_voice_rows([item]))
    if item.status == "failed":
        raise SystemExit(output.EXIT_TASK_FAILED)


@voice.command("clone")
@click.argument("sample", metavar="SAMPLE_FILE_OR_URL")
@click.option("--name", "voice_name", required=True, help="Voice name, unique within the account.")
@click.option("--lang", default="en", show_default=True, help="Language of the sample.")
@click.option("--description", help="Free text, up to 200 characters.")
@click.option("--gender", type=click.Choice(("male", "female", "unknown")))
@click.option("--no-denoise", is_flag=True, help="Skip noise reduction of the sample.")
@click.option("--enhance", is_flag=True, help="Longer, better fit (asynchronous: the voice starts as processing).")
@click.option("--wait", is_flag=True, help="With --enhance: wait until the voice is ready or failed.")
@click.option("--poll-interval", type=click.FloatRange(min=1), default=5.0, show_default=True)
@pass_session
@handles_errors
def clone(
    session: Session,
    sample: str,
    voice_name: str,
    lang: str,
    description: str | None,
    gender: VoiceGender | None,
    no_denoise: bool,
    enhance: bool,
    wait: bool,
    poll_interval: float,
) -> None:
    """Clone a voice from a 10-60 s sample of one speaker (uploaded, or an http(s) URL)."""
    if not sample.startswith(("http://", "https://")) and not Path(sample).is_file():
        raise click.BadParameter(f"no such file: {sample}", param_hint="SAMPLE_FILE_OR_URL")
    item = session.client.voice.clone(
        sample,
        voice_name,
        lang,
        description=description,
        gender=gender,
        noise_reduction=False if no_denoise else None,
        enhance_quality=True if enhance else None,
    )
    while wait and item.status == "processing":
        time.sleep(poll_interval)
        item = session.client.voice.get(item.voice_id)
    _show_voice(session, item)


@voice.command("list")
@click.option("--status", type=click.Choice(("processing", "ready", "failed")))
@click.option("--lang", metavar="LANG")
@click.option("--native", is_flag=True, help="List the built-in TTS voices instead of the account's cloned ones.")
@pass_session
@handles_errors
def list_voices(session: Session, status: str | None, lang: str | None, native: bool) -> None:
    """List the account's cloned voices (every page), or the native TTS voices."""
    if native:
        natives = session.client.tts.voices(lang)
        if session.as_json:
            output.emit_json(natives)
            return
        table = Table("voice_id", "name", "languages", "gender", "engine", box=None, header_style="bold")
        for item in natives.voices:
            table.add_row(item.voice_id, item.name or "", ", ".join(item.languages or []), item.gender or "", item.engine or "")
        output.stdout.print(table)
        return
    voices = list(session.client.voice.iter_all(status=status, lang=lang))
    if session.as_json:
        output.emit_json({"voices": [v.model_dump(mode="json", exclude_none=True) for v in voices], "total": len(voices)})
        return
    output.stdout.print(_voice_rows(voices))
    output.note(f"{len(voices)} voices")


@voice.command("show")
@click.argument("voice_id")
@pass_session
@handles_errors
def show_voice(session: Session, voice_id: str) -> None:
    """Show one voice; exit 9 when it failed."""
    _show_voice(session, session.client.voice.get(voice_id))


@voice.command("rename")
@click.argument("voice_id")
@click.option("--name", "voice_name", help="New name.")
@click.option("--description", help="New description.")
@pass_session
@handles_errors
def rename_voice(session: Session, voice_id: str, voice_name: str | None, description: str | None) -> None:
    """Change a voice's name and/or description."""
    if voice_name is None and description is None:
        raise click.UsageError("give --name and/or --description")
    _show_voice(session, session.client.voice.update(voice_id, voice_name=voice_name, description=description))


@voice.command("delete")
@click.argument("voice_id")
@click.option("-y", "--yes", is_flag=True, help="Do not ask.")
@pass_session
@handles_errors
def delete_voice(session: Session, voice_id: str, yes: bool) -> None:
    """Delete a voice (irreversible; frees its quota slot)."""
    if not yes and not session.as_json:
        click.confirm(f"Delete voice {voice_id}?", abort=True)
    deleted = session.client.voice.delete(voice_id)
    if session.as_json:
        output.emit_json({"voice_id": voice_id, "deleted": deleted})
    else:
        output.say(f"deleted {voice_id}")


@cli.command()
@pass_session
@handles_errors
def account(session: Session) -> None:
    """Show the token's account: rate limits, monthly quotas and usage."""
    info = session.client.account()
    if session.as_json:
        output.emit_json(info)
        return
    output.say(f"account   {info.account_id} ({info.name})")
    output.say(f"rate      {info.rate_limit_per_minute}/min, burst {info.rate_limit_burst}")
    table = Table("metric", "used", "limit", box=None, header_style="bold")
    for metric in sorted(set(info.usage) | set(info.quotas)):
        table.add_row(metric, f"{info.usage.get(metric, 0):,}", f"{info.quotas[metric]:,}" if metric in info.quotas else "-")
    output.stdout.print(table)
    output.note(f"period {info.period}")
