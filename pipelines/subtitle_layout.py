"""A task's subtitle layout: its preset resolved per language, as segmentation options (docs/timed-text.md).

The preset (``subtitle_preset``, ``standard`` by default) gives each language its line length, reading
speed and durations; ``max_subtitle_length`` and ``subtitle_max_duration`` win when the request gave
them. The source language's options cut the recognized speech into cues (kept at their speech times);
the target language's lay the translation out and time it on the video's frames, snapping to its shot
changes. The quality report checks the final cues against the same preset.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from core.specs.transcript import Timing
from core.specs.video import VideoJobSpec
from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.presets import Preset, preset_for
from pipelines.subtitles.qc import DEFAULT_FPS, QcReport, check_cues
from pipelines.subtitles.types import Cue


@dataclasses.dataclass(frozen=True)
class Layout:
    """Segmentation options of a task's two languages, and the target's preset and frames.

    Attributes:
        source: options that cut the recognized speech into cues (speech times, no shot changes).
        target: options that lay the translation out and time it.
        preset: the target language's preset (what the quality report checks).
        fps: the video's frame rate (24 when it has none; the report's frames even under ``legacy``).
    """

    source: SegmentationOptions
    target: SegmentationOptions
    preset: Preset
    fps: float

    @property
    def shot_changes(self) -> tuple[float, ...]:
        """The video's shot changes the target is timed to, seconds (none under ``legacy``)."""
        return self.target.shot_changes

    def check(self, cues: Sequence[Cue]) -> QcReport:
        """The quality report of the final cues."""
        return check_cues(cues, self.preset, self.fps, self.shot_changes)

    def with_shot_changes(self, shot_changes: Sequence[float]) -> Layout:
        """The same layout timed to ``shot_changes`` (none under the legacy preset)."""
        if not self.preset.frame_rules:
            return self
        return dataclasses.replace(self, target=dataclasses.replace(self.target, shot_changes=tuple(sorted(shot_changes))))

    def timing(self) -> Timing:
        """What a revision needs to time its cues the same way."""
        return Timing(fps=self.fps, shot_changes=list(self.shot_changes))


def preset_of(spec: VideoJobSpec, language: str) -> Preset:
    """``language``'s preset under the task's ``subtitle_preset``, with the layout fields the request gave."""
    given = spec.explicit_layout
    return preset_for(
        language,
        spec.subtitle_preset,
        max_chars=spec.max_subtitle_length if "max_subtitle_length" in given else None,
        max_duration=spec.subtitle_max_duration if "subtitle_max_duration" in given else None,
    )


def options_for(
    preset: Preset,
    *,
    speaker_labels: bool,
    fps: float | None,
    shot_changes: Sequence[float] = (),
    until: float | None = None,
) -> SegmentationOptions:
    """Segmentation options that apply ``preset`` (Japanese in half-width units)."""
    unit = 2 if preset.half_width else 1
    return SegmentationOptions(
        max_chars=preset.max_chars * unit,
        max_lines=preset.max_lines,
        max_duration=preset.max_duration,
        min_duration=preset.min_duration,
        max_cps=preset.max_cps,
        speaker_labels=speaker_labels,
        half_width=preset.half_width,
        language=preset.language,
        fps=(fps or DEFAULT_FPS) if preset.frame_rules else None,
        shot_changes=tuple(shot_changes) if preset.frame_rules else (),
        until=until,
    )


def layout_of(
    spec: VideoJobSpec,
    source_lang: str,
    target_lang: str,
    *,
    speaker_labels: bool,
    fps: float | None = None,
    shot_changes: Sequence[float] = (),
    until: float | None = None,
    frame_rules: bool = True,
) -> Layout:
    """The layout of a task whose speech is in ``source_lang``, on a video of ``fps`` with ``shot_changes``,
    processed until ``until`` seconds. Without ``frame_rules`` cue times are not moved to frames (a client's
    subtitle file keeps its own times)."""
    frames = fps if fps and fps > 0 else DEFAULT_FPS
    target = preset_of(spec, target_lang)
    # Source cues stay at their speech times under frame rules (fps set): display timing comes after translation.
    source = options_for(preset_of(spec, source_lang), speaker_labels=speaker_labels, fps=None)
    return Layout(
        source=source,
        target=options_for(
            target if frame_rules else dataclasses.replace(target, frame_rules=False),
            speaker_labels=speaker_labels,
            fps=frames,
            shot_changes=shot_changes,
            until=until,
        ),
        preset=target,
        fps=frames,
    )
