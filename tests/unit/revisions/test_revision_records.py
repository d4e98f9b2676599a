"""A revision as the task record stores it, what the edge bills from its checked edits, and the JSON bodies sent."""

from __future__ import annotations

import json

import pytest

from core.specs.revision_of import RevisionOf
from core.specs.transcript import InvalidEdit, SegmentEdit, apply_edits, check_edits
from core.specs.video import VideoJobSpec
from core.tasks import Task, TaskState
from serve_app.schemas.video import TaskRecord
from serve_app.video_revisions import revision_charges
from tests.unit.revisions.test_edits import edit, transcript

PARENT = "b" * 32
#: ``params`` of a revision as stored when ``VideoJobSpec.revision`` was a plain dict.
STORED = {
    "target_lang": "es",
    "source_lang": "en",
    "enable_dubbing": True,
    "source": {"kind": "upload", "key": "u/talk.mp4", "filename": "talk.mp4", "size": 10},
    "revision": {
        "parent_task_id": PARENT,
        "root_task_id": "a" * 32,
        "number": 2,
        "edits": [{"id": "s2", "source": None, "translation": "otra", "speaker": None, "start": 4.5, "end": None}],
    },
}


def test_a_stored_revision_validates_into_the_typed_field_and_is_stored_the_same() -> None:
    spec = VideoJobSpec.model_validate(STORED)
    assert isinstance(spec.revision, RevisionOf)
    assert spec.revision.parent_task_id == PARENT and spec.revision.number == 2
    assert spec.revision.edits == [SegmentEdit(id="s2", translation="otra", start=4.5)]
    assert spec.stored()["revision"] == STORED["revision"]


EDITS = [
    [{"id": "s2", "translation": "Nuevo texto."}],
    [{"id": "s1", "translation": "t1"}],
    [{"id": "s2", "start": 4.5, "end": 9.5}, {"id": "s3", "source": "Otra cosa.", "translation": "x"}],
    [{"id": "s1", "end": 4.9}, {"id": "s2", "start": 5.0, "end": 6.0}],
]


@pytest.mark.parametrize("edits", EDITS)
def test_the_checked_plan_is_what_applying_the_edits_does(edits: list[dict]) -> None:
    before = transcript()
    plan = check_edits(before, [edit(**e) for e in edits])
    after, changes = apply_edits(before, [edit(**e) for e in edits])
    assert plan.changes == changes
    assert [plan.span_of(s) for s in before.segments] == [(s.start, s.end) for s in after.segments]


def test_check_edits_refuses_what_apply_edits_refuses() -> None:
    for edits in ([{"id": "s9", "translation": "x"}], [{"id": "s2", "start": 3.0}], [{"id": "s3", "end": 25.0}]):
        with pytest.raises(InvalidEdit) as checked:
            check_edits(transcript(), [edit(**e) for e in edits])
        with pytest.raises(InvalidEdit) as applied:
            apply_edits(transcript(), [edit(**e) for e in edits])
        assert str(checked.value) == str(applied.value)


def test_a_dub_is_charged_the_edited_seconds_of_the_lines_spoken_again() -> None:
    spec = VideoJobSpec.model_validate(STORED)
    before = transcript()
    undubbed = check_edits(before, [edit(id="s2", translation="otra", start=4.5)])
    assert revision_charges(spec, before, undubbed) == [("video_tasks", 1), ("dubbing_seconds", 12)]  # every line, s2 as edited
    dubbed = before.model_copy(update={"segments": [s.model_copy(update={"dubbing": {}}) for s in before.segments]})
    plan = check_edits(dubbed, [edit(id="s2", translation="otra", start=4.5)])
    assert revision_charges(spec, dubbed, plan) == [("video_tasks", 1), ("dubbing_seconds", 5)]  # 4.5 to 9.0
    assert revision_charges(spec.model_copy(update={"enable_dubbing": False}), dubbed, plan) == [("video_tasks", 1)]


def _task(status: TaskState, **fields: object) -> Task:
    fields.setdefault("params", {})
    return Task(task_id="c" * 32, account_id="acct", status=status, created_at=1_790_000_000.0, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "task",
    [
        _task(TaskState.QUEUED, estimated_seconds=30),
        _task(TaskState.QUEUED, params=STORED),
        _task(TaskState.PROCESSING, progress=40, stage="recognizing", estimated_seconds=12),
        _task(TaskState.COMPLETED, result={"srt_url": "https://x/a.srt", "qc": None}, completed_at=1_790_000_100.0),
        _task(TaskState.COMPLETED, params=STORED),
        _task(TaskState.FAILED, error={"code": "NO_AUDIO_TRACK", "message": "No audio."}),
        _task(TaskState.EXPIRED),
    ],
)
def test_the_task_record_model_sends_the_record_byte_for_byte(task: Task) -> None:
    body = TaskRecord.model_validate(task.public()).model_dump(mode="json", exclude_none=True)
    assert json.dumps(body) == json.dumps(task.public())
