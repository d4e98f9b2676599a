"""Edits to a stored transcript (core/specs/transcript.py): what is refused, and what an edit changes."""

from __future__ import annotations

import itertools

import pytest
from pydantic import ValidationError

from core.specs.revision import ReviseRequest, RevisionOf, revision_spec
from core.specs.transcript import CueRecord, InvalidEdit, SegmentEdit, SegmentRecord, StoredTranscript, apply_edits
from core.specs.video import VideoJobSpec


def _segment(n: int, start: float, end: float, speaker: str | None = None) -> SegmentRecord:
    middle = (start + end) / 2
    cues = [
        CueRecord(start=start, end=middle, lines=[f"part one of {n}"], speaker=speaker),
        CueRecord(start=middle + 0.1, end=end, lines=[f"part two of {n}."], speaker=speaker),
    ]
    source = f"part one of {n} part two of {n}."
    return SegmentRecord(id=f"s{n}", start=start, end=end, speaker=speaker, source=source, translation=f"t{n}", cues=cues)


def transcript(labels: bool = False) -> StoredTranscript:
    speaker = "Speaker 1" if labels else None
    return StoredTranscript(
        root_task_id="a" * 32,
        source_lang="en",
        target_lang="es",
        duration=20.0,
        span=(0.0, 20.0),
        speaker_labels=labels,
        segments=[_segment(1, 0.5, 4.0, speaker), _segment(2, 5.0, 9.0, speaker), _segment(3, 10.0, 14.0, speaker)],
    )


def edit(**fields: object) -> SegmentEdit:
    return SegmentEdit.model_validate(fields)


def test_a_translation_edit_changes_that_segment_only() -> None:
    before = transcript()
    after, changes = apply_edits(before, [edit(id="s2", translation="Nuevo texto.")])
    assert changes == {"s2": {"translation"}}
    assert after.segments[1].translation == "Nuevo texto." and after.segments[1].cues == before.segments[1].cues
    assert after.segments[0] == before.segments[0] and after.segments[2] == before.segments[2]
    assert before.segments[1].translation == "t2"  # the stored transcript is not changed in place


def test_an_edit_equal_to_what_is_there_changes_nothing() -> None:
    _, changes = apply_edits(transcript(), [edit(id="s1", translation="t1")])
    assert changes == {}


def test_recognized_times_are_not_judged_only_moved_ones() -> None:
    """Chunk joins can leave recognized segments overlapping by a little: editing text there is still fine."""
    before = transcript()
    segments = list(before.segments)
    segments[1] = segments[1].model_copy(update={"start": 3.9})  # overlaps s1 (ends at 4.0) as recognized
    overlapping = before.model_copy(update={"segments": segments})
    _, changes = apply_edits(overlapping, [edit(id="s2", translation="otra")])
    assert changes == {"s2": {"translation"}}
    with pytest.raises(InvalidEdit, match="before the previous one ends"):
        apply_edits(overlapping, [edit(id="s2", end=9.5)])


def test_new_times_move_the_segments_cues_with_it() -> None:
    after, changes = apply_edits(transcript(), [edit(id="s2", start=4.5, end=9.5)])
    assert changes == {"s2": {"times"}}
    cues = after.segments[1].cues
    assert cues[0].start == pytest.approx(4.5) and cues[-1].end == pytest.approx(9.5)
    assert all(a.end <= b.start for a, b in itertools.pairwise(cues))  # order and gaps kept, scaled


def test_a_speaker_edit_renames_every_cue_of_the_segment() -> None:
    after, changes = apply_edits(transcript(labels=True), [edit(id="s3", speaker="Speaker 2")])
    assert changes == {"s3": {"speaker"}}
    assert {c.speaker for c in after.segments[2].cues} == {"Speaker 2"}


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ([], "at least one"),
        ([{"id": "s9", "translation": "x"}], "'s9' is not in the transcript"),
        ([{"id": "s1", "translation": "x"}, {"id": "s1", "source": "y"}], "edited twice"),
        ([{"id": "s2", "start": 8.0, "end": 6.0}], "must start before it ends"),
        ([{"id": "s2", "start": 3.0}], "before the previous one ends"),
        ([{"id": "s2", "end": 10.5}], "'s2' ends at 10.5 s, after the next one starts"),
        ([{"id": "s3", "end": 25.0}], "outside the video's processed range"),
        ([{"id": "s1", "speaker": "Speaker 2"}], "needs a task with enable_diarization"),
    ],
)
def test_edits_that_do_not_fit_are_refused_with_the_segment_named(edits: list[dict], message: str) -> None:
    with pytest.raises(InvalidEdit, match=message):
        apply_edits(transcript(), [SegmentEdit.model_validate(e) for e in edits])


@pytest.mark.parametrize(
    "fields",
    [
        {"id": "s1"},  # changes nothing
        {"id": "s1", "translation": ""},
        {"id": "s1", "speaker": "[Speaker 2]"},  # brackets would break the label
        {"id": "s1", "start": -1.0},
        {"id": "s1", "end": float("inf")},
        {"id": "s1", "colour": "red"},
    ],
)
def test_malformed_edits_are_refused_by_the_model(fields: dict) -> None:
    with pytest.raises(ValidationError):
        SegmentEdit.model_validate(fields)


def test_a_revision_keeps_the_parents_recognition_and_takes_the_output_choices_given() -> None:
    parent = VideoJobSpec.model_validate(
        {
            "target_lang": "es",
            "source_lang": "en",
            "output_format": "srt",
            "callback_url": "https://hooks.example.com/a",
            "source": {"kind": "upload", "key": "u/talk.mp4"},
        }
    )
    request = ReviseRequest.model_validate({"segments": [{"id": "s1", "translation": "x"}], "output_format": "vtt"})
    revision = RevisionOf(parent_task_id="b" * 32, root_task_id="b" * 32, number=1, edits=request.segments)
    spec = revision_spec(parent, request, revision)
    assert spec.output_format == "vtt" and spec.target_lang == "es" and spec.source == parent.source
    assert spec.callback_url is None  # the parent's callback is not called for its revisions
    assert spec.revision is not None and spec.revision.parent_task_id == "b" * 32
    with pytest.raises(ValidationError):  # a recognition choice is not a revision's to change
        ReviseRequest.model_validate({"segments": [{"id": "s1", "translation": "x"}], "target_lang": "fr"})
    with pytest.raises(ValidationError):
        ReviseRequest.model_validate({"segments": [{"id": "s1", "translation": "x"}], "subtitle_size": 500})
