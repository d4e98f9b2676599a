"""The stored transcript of a video task, and the edits a revision applies to it (docs/video-revisions.md).

A completed video task keeps, next to its outputs and for as long as they are kept, the transcript it
rendered them from (``transcript.json`` in the task's folder of the file store): one segment per
translated sentence, with a stable ``id``, its span, speaker, recognized ``source``, ``translation``
and the subtitle cues of the source that the translation is laid over. ``GET …/transcript`` shows it;
``POST …/revise`` starts a task that applies :class:`SegmentEdit` s to it and renders again, without
recognizing again.

Edits are checked in one place and applied in one place. :func:`check_edits` refuses bad edits and says
what each changes (:class:`EditPlan`: the changed fields and new times) without building an edited
transcript: the edge calls it to answer at once and to bill and estimate the revision from the plan.
:func:`apply_edits` builds the edited transcript from that plan, and only the worker calls it, for what it
renders. The task carries only the edits (``VideoJobSpec.revision``); the parent's transcript is immutable,
so the worker's plan is the edge's.
"""

from __future__ import annotations

import dataclasses
import json
import math
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from core.files.base import FileStore, FileStoreError, object_key

#: Most edits one revision takes (a long video has a few thousand segments).
MAX_EDITS = 5000
MAX_TEXT = 5000
#: Times closer than this are the same time (cue times are written in milliseconds).
EPSILON_S = 1e-3
SPEAKER_PATTERN = r"^[^\[\]\x00-\x1f\x7f]+$"
TRANSCRIPT_NAME = "transcript.json"


class WordRecord(BaseModel):
    """One recognized word of a segment's source: its text, times and the recognizer's confidence."""

    text: str
    start: float
    end: float
    probability: float | None = None


class Timing(BaseModel):
    """How a task's cues were timed: the video's frame rate and shot changes (seconds)."""

    fps: float = 24.0
    shot_changes: list[float] = Field(default_factory=list)


class CueRecord(BaseModel):
    """One source-language subtitle cue of a segment, as rendered (``lines[0]`` opens with ``label``)."""

    start: float
    end: float
    lines: list[str]
    speaker: str | None = None
    label: str = ""


class SegmentRecord(BaseModel):
    """One translated sentence: its span, speaker, recognized text, translation and source cues."""

    id: str
    start: float
    end: float
    speaker: str | None = None
    source: str
    translation: str
    cues: list[CueRecord]
    dubbing: dict[str, Any] | None = None
    #: The translation before it was condensed for reading speed (``translation`` is what is shown).
    full_translation: str | None = None
    words: list[WordRecord] = Field(default_factory=list)

    def public(self) -> dict[str, Any]:
        body: dict[str, Any] = {"id": self.id, "start": round(self.start, 3), "end": round(self.end, 3)}
        if self.speaker is not None:
            body["speaker"] = self.speaker
        body |= {"source": self.source, "translation": self.translation}
        if self.full_translation is not None:
            body |= {"condensed": True, "full_translation": self.full_translation}
        if self.dubbing is not None:
            body["dubbing"] = self.dubbing
        body["words"] = [
            {"text": w.text, "start": round(w.start, 3), "end": round(w.end, 3), "probability": w.probability} for w in self.words
        ]
        return body


class StoredTranscript(BaseModel):
    """``transcript.json``: what a revision renders from.

    Attributes:
        root_task_id: the task that recognized the video (a revision's revisions share its recognition).
        revision: 0 for a task that recognized the video, n for its n-th revision in a chain.
        speakers: the diarized speakers (name, seconds, gender, gender_confidence, embedding), for dubbing.
        size: the video's frame size (subtitle layout), when it has a video stream.
        span: the processed range (``start_time`` to ``end_time`` or the end) in seconds.
    """

    model_config = ConfigDict(extra="ignore")

    version: int = 1
    task_id: str | None = None  # filled in when read: the file is stored under the task's id
    root_task_id: str | None = None  # None: the task itself recognized the video
    parent_task_id: str | None = None
    revision: int = 0
    source_lang: str
    target_lang: str
    duration: float
    span: tuple[float, float]
    size: tuple[int, int] | None = None
    speaker_labels: bool = False
    speakers: list[dict[str, Any]] = Field(default_factory=list)
    segments: list[SegmentRecord]
    timing: Timing = Field(default_factory=Timing)
    #: The timed-text quality report: ``summary`` (the result's ``qc``) and ``cues`` (one record per shown cue).
    qc: dict[str, Any] | None = None

    def public(self) -> dict[str, Any]:
        """The body of ``GET /v1/video/task/{id}/transcript``."""
        body: dict[str, Any] = {
            "task_id": self.task_id,
            "parent_task_id": self.parent_task_id,
            "revision": self.revision,
            "source_lang": self.source_lang,
            "target_lang": self.target_lang,
            "duration": round(self.duration, 3),
        }
        if self.speaker_labels:
            body["speakers"] = [str(s["name"]) for s in self.speakers]
        body["segments"] = [s.public() for s in self.segments]
        if self.qc is not None:
            body["qc"] = self.qc.get("summary")
            body["cues"] = self.qc.get("cues", [])
        return body


class SegmentEdit(BaseModel):
    """A change to one segment: any of its recognized text, translation, speaker and times."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: str = Field(min_length=1, max_length=32, description="A segment id from the transcript.")
    source: str | None = Field(
        None, min_length=1, max_length=MAX_TEXT, description="Corrected recognized text: translated again."
    )
    translation: str | None = Field(
        None, min_length=1, max_length=MAX_TEXT, description="The translation to use as given (subtitles and dub)."
    )
    speaker: str | None = Field(
        None, min_length=1, max_length=64, pattern=SPEAKER_PATTERN, description="Speaker name (diarized tasks)."
    )
    start: float | None = Field(None, ge=0.0, description="New start, seconds on the video's timeline.")
    end: float | None = Field(None, gt=0.0, description="New end, seconds on the video's timeline.")

    @model_validator(mode="after")
    def _changes_something(self) -> SegmentEdit:
        if all(getattr(self, name) is None for name in ("source", "translation", "speaker", "start", "end")):
            raise ValueError(f"edit of {self.id!r} changes nothing: give source, translation, speaker, start or end")
        for name in ("start", "end"):
            value = getattr(self, name)
            if value is not None and not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number of seconds")
        return self


class InvalidEdit(ValueError):
    """An edit that does not fit the transcript (unknown id, times out of order or outside the video)."""


#: What an edit changed in a segment: ``source``, ``translation``, ``speaker``, ``times``.
Changes = dict[str, set[str]]


@dataclasses.dataclass(frozen=True)
class EditPlan:
    """What checked edits change, without the edited transcript.

    Attributes:
        changes: per segment id, what its edit changes (edits that change nothing are left out).
        times: the new ``(start, end)`` of each segment whose times change.
    """

    changes: Changes
    times: dict[str, tuple[float, float]]

    def span_of(self, segment: SegmentRecord) -> tuple[float, float]:
        """The segment's times once the edits are applied."""
        return self.times.get(segment.id, (segment.start, segment.end))


def check_edits(transcript: StoredTranscript, edits: list[SegmentEdit]) -> EditPlan:
    """What ``edits`` change in ``transcript``; raises :class:`InvalidEdit` (naming the segment) for a bad one.

    Segments keep their order: after the edits each moved one must start before it ends, inside the
    processed range, and not before the previous one ends.
    """
    if not edits:
        raise InvalidEdit("segments must list at least one edit")
    by_id = {s.id: s for s in transcript.segments}
    changes: Changes = {}
    times: dict[str, tuple[float, float]] = {}
    for edit in edits:
        if edit.id not in by_id:
            raise InvalidEdit(f"segment {edit.id!r} is not in the transcript")
        if edit.id in changes:
            raise InvalidEdit(f"segment {edit.id!r} is edited twice")
        if edit.speaker is not None and not transcript.speaker_labels:
            raise InvalidEdit(f"segment {edit.id!r}: speaker needs a task with enable_diarization")
        changes[edit.id], moved = _changed(by_id[edit.id], edit)
        if moved is not None:
            times[edit.id] = moved
    plan = EditPlan({k: v for k, v in changes.items() if v}, times)
    spans = [(s.id, *plan.span_of(s)) for s in transcript.segments]
    for index, (segment_id, _, _) in enumerate(spans):
        if segment_id in times:
            _check_times(spans, index, transcript.span)
    return plan


def apply_edits(transcript: StoredTranscript, edits: list[SegmentEdit]) -> tuple[StoredTranscript, Changes]:
    """The transcript with ``edits`` applied (checked by :func:`check_edits`), and what changed per segment id.

    A new source without a new translation leaves the old translation for the worker to replace; times
    move the segment's cues with it (scaled to the new span). Raises :class:`InvalidEdit` like :func:`check_edits`.
    """
    plan = check_edits(transcript, edits)
    by_edit = {edit.id: edit for edit in edits}
    segments = [
        _edited(s, by_edit[s.id], plan.changes[s.id], plan.span_of(s)) if s.id in plan.changes else s for s in transcript.segments
    ]
    return transcript.model_copy(update={"segments": segments}), plan.changes


def _check_times(spans: list[tuple[str, float, float]], index: int, span: tuple[float, float]) -> None:
    """A segment with new times starts before it ends, inside the processed range, between its neighbours.

    Only moved segments are checked: recognized times are what they are (chunk joins may overlap by a few ms).
    """
    segment_id, start, end = spans[index]
    if end - start < EPSILON_S:
        raise InvalidEdit(f"segment {segment_id!r} must start before it ends ({start:g} ≥ {end:g} s)")
    if start < span[0] - EPSILON_S or end > span[1] + EPSILON_S:
        raise InvalidEdit(
            f"segment {segment_id!r} ({start:g}–{end:g} s) is outside the video's processed range ({span[0]:g}–{span[1]:g} s)"
        )
    if index > 0 and start < spans[index - 1][2] - EPSILON_S:
        raise InvalidEdit(f"segment {segment_id!r} starts at {start:g} s, before the previous one ends")
    if index + 1 < len(spans) and end > spans[index + 1][1] + EPSILON_S:
        raise InvalidEdit(f"segment {segment_id!r} ends at {end:g} s, after the next one starts")


def _changed(segment: SegmentRecord, edit: SegmentEdit) -> tuple[set[str], tuple[float, float] | None]:
    """What ``edit`` changes in ``segment``, and its new times when they change."""
    changed: set[str] = set()
    if edit.source is not None and edit.source != segment.source:
        changed.add("source")
    if edit.translation is not None and edit.translation != segment.translation:
        changed.add("translation")
    if edit.speaker is not None and edit.speaker != segment.speaker:
        changed.add("speaker")
    start = segment.start if edit.start is None else edit.start
    end = segment.end if edit.end is None else edit.end
    if abs(start - segment.start) > EPSILON_S or abs(end - segment.end) > EPSILON_S:
        changed.add("times")
        return changed, (start, end)
    return changed, None


def _edited(segment: SegmentRecord, edit: SegmentEdit, changed: set[str], times: tuple[float, float]) -> SegmentRecord:
    update: dict[str, Any] = {}
    if "source" in changed:
        update["source"] = edit.source
        update["words"] = []  # the recognized words no longer say what the segment says
    if "translation" in changed:
        update["translation"] = edit.translation
        update["full_translation"] = None
    if "speaker" in changed:
        update["speaker"] = edit.speaker
        update["cues"] = [c.model_copy(update={"speaker": edit.speaker}) for c in segment.cues]
    if "times" in changed:
        start, end = times
        update["cues"] = _moved(update.get("cues", segment.cues), segment.start, segment.end, start, end)
        update["words"] = []
        update["start"], update["end"] = start, end
    return segment.model_copy(update=update)


def _moved(cues: list[CueRecord], old_start: float, old_end: float, start: float, end: float) -> list[CueRecord]:
    """Cue times mapped from the old span to the new one (an inverted span is refused by the caller)."""
    scale = (end - start) / (old_end - old_start) if old_end - old_start > EPSILON_S else 0.0

    def at(t: float) -> float:
        return round(start + (t - old_start) * scale, 3)

    return [c.model_copy(update={"start": at(c.start), "end": at(c.end)}) for c in cues]


async def read_transcript(files: FileStore, task_id: str) -> StoredTranscript | None:
    """The stored transcript of ``task_id``, or None when there is none (expired, or the task kept none)."""
    with tempfile.TemporaryDirectory(prefix="transcript-") as scratch:
        try:
            path = await files.fetch(object_key(task_id, TRANSCRIPT_NAME), Path(scratch) / TRANSCRIPT_NAME)
            data = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, FileStoreError, ValueError):
            return None
    try:
        transcript = StoredTranscript.model_validate(data)
    except ValidationError:
        return None
    return transcript.model_copy(update={"task_id": task_id, "root_task_id": transcript.root_task_id or task_id})
