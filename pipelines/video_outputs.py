"""A video task's outputs: subtitle files in the asked formats, the burned video, the dub, published.

Shared by a task that recognizes its video (``video_translation.py``) and by a revision
(``video_revision.py``): both render the same cues the same way and publish them under the same names.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from core.specs.video import VideoJobSpec
from engines.media.ffmpeg import burn_subtitles, resolve_font
from pipelines.subtitles import Cue, SubtitleStyle, render

SUBTITLE_TYPES = {
    "srt": "application/x-subrip",
    "vtt": "text/vtt",
    "ass": "text/x-ssa",
    "ttml": "application/ttml+xml",
    "ebu_tt_d": "application/ttml+xml",
}
#: Published files: kind → (download name, content type).
OUTPUT_FILES = {
    **{kind: (f"video.{kind}", content_type) for kind, content_type in SUBTITLE_TYPES.items()},
    "ebu_tt_d": ("video.ebu-tt-d.ttml", SUBTITLE_TYPES["ebu_tt_d"]),
    "burned_video": ("video.mp4", "video/mp4"),
    "dubbed_video": ("video.dubbed.mp4", "video/mp4"),
    "dubbing_report": ("dubbing.json", "application/json"),
}


class Publisher(Protocol):
    """What rendering needs of the pipeline's dependencies: the ffmpeg deadline and publishing."""

    @property
    def timeout_s(self) -> float: ...

    @property
    def publish(self) -> Callable[[Path, str, str], Awaitable[str]]: ...


def add_dub(spec: VideoJobSpec, outputs: dict[str, Path], dubbed: tuple[Path, dict[str, Any]] | None, workdir: Path) -> None:
    """The dubbed video and its report among the outputs (with ``burned_video`` the burned video is the dub)."""
    if dubbed is None:
        return
    if spec.output_format != "burned_video":
        outputs["dubbed_video"] = dubbed[0]
    outputs["dubbing_report"] = write_file(workdir / "dubbing.json", json.dumps(dubbed[1], ensure_ascii=False, indent=1))


async def render_outputs(
    spec: VideoJobSpec,
    cues: list[Cue],
    size: tuple[int, int] | None,
    media: Path | None,
    workdir: Path,
    deps: Publisher,
    duration: float | None = None,
) -> dict[str, Path]:
    """The subtitle files the task asks for, and the burned video (``media`` is needed only to burn; it is rendered
    up to ``duration``, the probed and charged length, when given)."""
    size = size or (1280, 720)
    style = dataclasses.replace(
        style_of(spec), font=await asyncio.to_thread(resolve_font, spec.subtitle_font, lang=spec.target_lang)
    )
    outputs: dict[str, Path] = {}
    for fmt in spec.subtitle_formats:
        text = render(cues, fmt, style, size, language=spec.target_lang)
        outputs[fmt] = write_file(workdir / f"subtitles.{fmt}", text)
    if spec.burns:
        if media is None:
            raise ValueError("burning subtitles needs the video")
        ass = outputs.get("ass") or write_file(workdir / "burn.ass", render(cues, "ass", style, size))
        outputs["burned_video"] = await asyncio.to_thread(
            burn_subtitles, media, ass, workdir / "video.mp4", timeout_s=deps.timeout_s, duration=duration
        )
    return outputs


def write_file(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


async def publish_outputs(spec: VideoJobSpec, outputs: dict[str, Path], deps: Publisher) -> dict[str, Any]:
    urls: dict[str, str] = {}
    for kind, path in outputs.items():
        name, content_type = OUTPUT_FILES[kind]
        urls[kind] = await deps.publish(path, name, content_type)
    result: dict[str, Any] = {}
    if spec.output_format == "all":
        result["files"] = {kind: url for kind, url in urls.items() if kind != "dubbing_report"}
    elif spec.output_format == "burned_video":
        result["video_url"] = urls["burned_video"]  # burned onto the dubbed video when dubbing
    else:
        result["subtitle_url"] = urls[spec.output_format]
    if "dubbing_report" in urls:
        result.setdefault("video_url", urls.get("dubbed_video"))
        result["dubbing_report_url"] = urls["dubbing_report"]
    return result


def style_of(spec: VideoJobSpec) -> SubtitleStyle:
    """The subtitle style the task asked for."""
    return SubtitleStyle(
        font=spec.subtitle_font,
        size=spec.subtitle_size,
        color=spec.subtitle_color,
        outline=spec.subtitle_outline,
        outline_width=spec.subtitle_outline_width,
        background=None if spec.subtitle_bg == "none" else spec.subtitle_bg,
        position=spec.subtitle_position,
    )
