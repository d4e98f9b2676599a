"""A client's subtitle file, translated (docs/subtitle-translation.md): its cues in, the same times out.

Alone (``POST /v1/subtitles/translate``) or as a video's own subtitles (``subtitle_file``, used instead of
recognition: the video is probed and charged as any, and burned or dubbed when asked). No recognition:
the file stored at submission is read again (``engines.text.subtitle_files``,
which the edge already ran on it), its cues become the source cues of a transcript (lines as written,
speakers from labels, ASS actors or WebVTT voices), grouped into sentences as recognized speech is, and
each sentence is translated as a recognized video's are (``transcript_translation.translate_groups``). The
translation is laid over the input's cues (``transcript_render``): each cue keeps its times, and a
translation that no longer fits its cue's lines is laid out again by the target language's preset. The
task stores its transcript, so it can be revised, and have languages added, as any video task.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from core.specs.transcript import Timing
from core.specs.video import SubtitleSource, VideoJobSpec
from engines.errors import InvalidInput
from engines.text.subtitle_files import BadSubtitleFile, InputCue, read_subtitles
from pipelines.dubbing.voices import Speaker
from pipelines.progress import Progress
from pipelines.subtitle_layout import layout_of
from pipelines.subtitles import Cue, cue_text
from pipelines.subtitles.layout import speaker_label
from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.translation import group_sentences
from pipelines.transcript_render import Lineage, render_transcript, translate_stored
from pipelines.transcript_store import to_stored
from pipelines.video_translation import PipelineDeps, check_pair, frame_rate, frame_size, obtain_video


async def translate_subtitles(spec: VideoJobSpec, deps: PipelineDeps, progress: Progress, workdir: Path) -> dict[str, Any]:
    """Run a subtitle file's task, alone or with its video; returns the task ``result`` object."""
    file = spec.subtitles or (spec.source if isinstance(spec.source, SubtitleSource) else None)
    if file is None or spec.source_lang is None:
        raise ValueError("translate_subtitles runs subtitle files whose language is known (the edge resolves auto)")
    await progress.enter("validating")
    media, info = (None, None) if isinstance(spec.source, SubtitleSource) else await obtain_video(spec, deps, workdir)
    folder = workdir / "subtitles"
    folder.mkdir(parents=True, exist_ok=True)
    data = await asyncio.to_thread((await deps.obtain(file, folder)).read_bytes)
    try:
        cues = read_subtitles(data, file.filename).cues
    except BadSubtitleFile as exc:  # checked at submission: only a file changed in the store gets here
        raise InvalidInput(f"The subtitle file cannot be read: {exc}") from exc
    if info is not None:
        cues = within(cues, info.duration)
    source, target = spec.source_lang, spec.target_lang
    await check_pair(deps, source, target)
    labelled = any(cue.speaker for cue in cues)
    duration = info.duration if info is not None else max(cue.end for cue in cues)
    fps = frame_rate(info) if info is not None else None
    layout = layout_of(spec, source, target, speaker_labels=labelled, fps=fps, until=duration, frame_rules=False)
    groups = group_sentences(source_cues(cues, layout.source, labelled))
    sentences = [" ".join(cue_text(c) for c in group) for group in groups]
    transcript = to_stored(
        groups, sentences, sentences, speakers_of(cues), source_lang=source, target_lang=target, duration=duration,
        span=(0.0, duration), size=frame_size(info) if info is not None else None, speaker_labels=labelled,
        timing=Timing(fps=layout.fps),
    )  # fmt: skip

    translated = await translate_stored(spec, transcript, groups, layout, deps, progress)
    return await render_transcript(spec, translated, layout, Lineage(), deps, progress, workdir, media)


def within(cues: tuple[InputCue, ...], duration: float) -> tuple[InputCue, ...]:
    """The cues that start inside the video, ended at its end; none left is a file for another video."""
    kept = tuple(
        dataclasses.replace(cue, end=min(cue.end, duration)) for cue in cues if cue.start < duration and cue.end > cue.start
    )
    if not kept:
        raise InvalidInput(f"The subtitle file has no cue within the video's {duration:.1f} seconds.")
    return kept


def source_cues(cues: tuple[InputCue, ...], options: SegmentationOptions, labelled: bool) -> list[Cue]:
    """The input's cues as source cues: their lines as written, a speaker label on the first cue of each turn.

    In a file with labels an unlabelled cue goes on the previous cue's turn (the usual convention: a label
    marks a change of speaker)."""
    out: list[Cue] = []
    previous: str | None = None
    for n, (cue, speaker) in enumerate(zip(cues, turns(cues)), 1):
        lines = tuple(line for line in cue.text.split("\n") if line.strip())
        label = ""
        if labelled and speaker and speaker != previous:
            label = speaker_label(speaker, options.max_chars, options.measure)
            lines = (f"{label} {lines[0]}", *lines[1:])
        previous = speaker
        out.append(Cue(n, cue.start, cue.end, lines, speaker=speaker, label=label))
    return out


def turns(cues: tuple[InputCue, ...]) -> list[str | None]:
    """Each cue's speaker: its own, else the previous cue's."""
    out: list[str | None] = []
    for cue in cues:
        out.append(cue.speaker or (out[-1] if out else None))
    return out


def speakers_of(cues: tuple[InputCue, ...]) -> list[Speaker]:
    """The file's speakers by speaking time (no voice is known: gender ``unknown``)."""
    seconds: dict[str, float] = {}
    for cue, speaker in zip(cues, turns(cues)):
        if speaker:
            seconds[speaker] = seconds.get(speaker, 0.0) + cue.end - cue.start
    return [Speaker(name, round(total, 1), "unknown", 0.0) for name, total in sorted(seconds.items(), key=lambda kv: -kv[1])]
