"""A task's transcript, and revisions: the body and key sent, waiting for the new task, errors, the async mirror."""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from typing import Any

import pytest
from pydantic import ValidationError

from conftest import ACCEPTED, CHILD, PARENT, SERVICE_ROOT, TRANSCRIPT, LoopbackServer, Recorded, Reply, serve_revise, task_record
from mediatrans_client import (
    AsyncClient,
    Client,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    SegmentEdit,
    Transcript,
)
from mediatrans_client import _async_resources as async_groups
from mediatrans_client import _sync_resources as sync_groups


def test_transcript_parses_segments_speakers_and_dubbing(server: LoopbackServer, client: Client) -> None:
    server.route("GET", f"/v1/video/task/{PARENT}/transcript")(lambda r: Reply(200, TRANSCRIPT))
    transcript = client.video.transcript(PARENT)
    assert isinstance(transcript, Transcript)
    assert (transcript.task_id, transcript.parent_task_id, transcript.revision) == (PARENT, None, 0)
    assert transcript.speakers == ["Speaker 1", "Speaker 2"] and transcript.duration == 12.3
    first, second = transcript.segments
    assert (first.id, first.start, first.end, first.speaker, first.dubbing) == ("s1", 0.0, 2.5, "Speaker 1", None)
    assert second.translation == "Hola a todos." and second.dubbing is not None and second.dubbing["tempo"] == 1.05
    assert second.model_extra == {"confidence": 0.93}  # unknown fields are kept
    request = server.requests_to("GET", f"/v1/video/task/{PARENT}/transcript")[0]
    assert request.headers["authorization"] == "Bearer mt_test_token"


def test_a_transcript_without_speakers_or_dubbing(server: LoopbackServer, client: Client) -> None:
    plain = {
        "task_id": CHILD,
        "parent_task_id": PARENT,
        "revision": 1,
        "source_lang": "en",
        "target_lang": "fr",
        "duration": 3.0,
        "segments": [{"id": "s1", "start": 0.0, "end": 3.0, "source": "Hi.", "translation": "Salut."}],
    }
    server.route("GET", f"/v1/video/task/{CHILD}/transcript")(lambda r: Reply(200, plain))
    transcript = client.video.transcript(CHILD)
    assert transcript.speakers is None and transcript.segments[0].speaker is None
    assert transcript.parent_task_id == PARENT and transcript.revision == 1


def test_revise_sends_the_edits_and_only_the_choices_given(server: LoopbackServer, client: Client) -> None:
    seen = serve_revise(server)
    edits: list[Any] = [
        SegmentEdit(id="s3", translation="nuevo texto"),
        {"id": "s5", "source": "corrected text", "speaker": "Speaker 2", "start": 10.0, "end": 12.5, "translation": None},
    ]
    task = client.video.revise(
        PARENT, edits, output_format="all", bilingual=False, subtitle_size=28, dubbing_voice="original", idempotency_key="k-1"
    )
    assert (task.task_id, task.status, task.parent_task_id, task.revision) == (CHILD, "queued", PARENT, 1)
    assert task.estimated_seconds == 20
    assert len(seen) == 1 and seen[0].headers["idempotency-key"] == "k-1"
    assert seen[0].headers["content-type"] == "application/json"
    assert json.loads(seen[0].body) == {
        "segments": [
            {"id": "s3", "translation": "nuevo texto"},
            {"id": "s5", "source": "corrected text", "speaker": "Speaker 2", "start": 10.0, "end": 12.5},
        ],
        "output_format": "all",
        "bilingual": False,
        "subtitle_size": 28,
        "dubbing_voice": "original",
    }


def test_revise_without_choices_sends_only_the_segments_and_a_fresh_key(server: LoopbackServer, client: Client) -> None:
    seen = serve_revise(server)
    client.video.revise(PARENT, [{"id": "s1", "translation": "Buenas."}])
    client.video.revise(PARENT, [{"id": "s1", "translation": "Buenas."}], extra={"x_extension": 1})
    assert json.loads(seen[0].body) == {"segments": [{"id": "s1", "translation": "Buenas."}]}
    assert json.loads(seen[1].body) == {"segments": [{"id": "s1", "translation": "Buenas."}], "x_extension": 1}
    keys = [request.headers["idempotency-key"] for request in seen]
    assert all(keys) and keys[0] != keys[1]


def test_a_retried_revision_keeps_its_key(server: LoopbackServer, client: Client) -> None:
    attempts: list[Recorded] = []

    @server.route("POST", f"/v1/video/task/{PARENT}/revise")
    def flaky(request: Recorded) -> Reply:
        attempts.append(request)
        if len(attempts) == 1:
            return Reply(503, {"code": "SERVICE_BUSY", "message": "busy", "request_id": "r1"}, {"Retry-After": "0"})
        return Reply(200, ACCEPTED)

    assert client.video.revise(PARENT, [SegmentEdit(id="s1", end=2.0)]).task_id == CHILD
    assert len(attempts) == 2 and len({a.headers["idempotency-key"] for a in attempts}) == 1
    assert attempts[0].body == attempts[1].body


def test_revise_with_wait_polls_the_new_task(server: LoopbackServer, client: Client) -> None:
    serve_revise(server)
    records = iter([task_record(CHILD, "processing", 60, "rendering", parent_task_id=PARENT, revision=1)])
    done = task_record(CHILD, "completed", 100, parent_task_id=PARENT, revision=1, result={"subtitle_url": "/v1/files/x.srt"})
    server.route("GET", f"/v1/video/task/{CHILD}")(lambda r: Reply(200, next(records, done)))
    progress: list[int | None] = []
    edits = [{"id": "s1", "translation": "Hola."}]
    task = client.video.revise(PARENT, edits, wait=True, poll_interval=0.01, on_progress=lambda t: progress.append(t.progress))
    assert task.status == "completed" and task.parent_task_id == PARENT and task.revision == 1
    assert progress == [60, 100]


@pytest.mark.parametrize(
    ("status", "code", "error"),
    [(409, "CONFLICT", ConflictError), (404, "TASK_NOT_FOUND", NotFoundError)],
)
def test_transcript_errors_map_to_their_class(
    server: LoopbackServer, client: Client, status: int, code: str, error: type[Exception]
) -> None:
    body = {"code": code, "message": "The task is not completed.", "request_id": "rq-1"}
    server.route("GET", f"/v1/video/task/{PARENT}/transcript")(lambda r: Reply(status, body))
    with pytest.raises(error) as info:
        client.video.transcript(PARENT)
    assert info.value.code == code and info.value.status == status and info.value.request_id == "rq-1"


def test_a_refused_revision_raises_with_its_details(server: LoopbackServer, client: Client) -> None:
    details = [{"field": "segments[0].id", "message": "no segment s9"}]
    server.route("POST", f"/v1/video/task/{PARENT}/revise")(
        lambda r: Reply(400, {"code": "INVALID_PARAMETER", "message": "Bad edits.", "request_id": "rq-2", "details": details})
    )
    with pytest.raises(InvalidRequestError) as info:
        client.video.revise(PARENT, [{"id": "s9", "translation": "x"}])
    assert info.value.code == "INVALID_PARAMETER" and info.value.details == details
    server.route("POST", f"/v1/video/task/{PARENT}/revise")(
        lambda r: Reply(409, {"code": "CONFLICT", "message": "Transcript expired.", "request_id": "rq-3"})
    )
    with pytest.raises(ConflictError) as conflict:
        client.video.revise(PARENT, [{"id": "s1", "translation": "x"}])
    assert conflict.value.code == "CONFLICT" and conflict.value.status == 409


def test_an_edit_without_an_id_is_refused_before_sending(server: LoopbackServer, client: Client) -> None:
    with pytest.raises(ValidationError):
        client.video.revise(PARENT, [{"translation": "no id"}])
    assert server.requests == []


def test_the_async_client_reads_and_revises_alike(server: LoopbackServer) -> None:
    server.route("GET", f"/v1/video/task/{PARENT}/transcript")(lambda r: Reply(200, TRANSCRIPT))
    seen = serve_revise(server)
    server.route("GET", f"/v1/video/task/{CHILD}")(lambda r: Reply(200, task_record(CHILD, "completed", 100, revision=1)))

    async def run() -> tuple[Transcript, Any]:
        async with AsyncClient(server.base_url, "tok") as c:
            transcript = await c.video.transcript(PARENT)
            edits = [SegmentEdit(id="s2", translation="Hola, todos.")]
            task = await c.video.revise(PARENT, edits, enable_dubbing=True, idempotency_key="k-a", wait=True, poll_interval=0.01)
            return transcript, task

    transcript, task = asyncio.run(run())
    assert transcript == Transcript.model_validate(TRANSCRIPT)
    assert task.status == "completed" and task.revision == 1
    assert seen[0].headers["idempotency-key"] == "k-a"
    assert json.loads(seen[0].body) == {"segments": [{"id": "s2", "translation": "Hola, todos."}], "enable_dubbing": True}


def test_sync_and_async_revise_take_the_same_arguments() -> None:
    for name in ("transcript", "revise"):
        sync_method = inspect.signature(getattr(sync_groups.Video, name))
        async_method = inspect.signature(getattr(async_groups.AsyncVideo, name))
        assert list(sync_method.parameters) == list(async_method.parameters), name


def test_the_revise_arguments_match_the_service_request_model() -> None:
    """Every output choice the service's revise body accepts is a keyword argument, and each edit field a SegmentEdit one."""
    if str(SERVICE_ROOT) not in sys.path:
        sys.path.insert(0, str(SERVICE_ROOT))
    revision = pytest.importorskip("core.specs.revision")
    transcript = pytest.importorskip("core.specs.transcript")
    control = {"self", "task_id", "edits", "extra", "idempotency_key", "wait", "on_progress", "poll_interval", "timeout"}
    offered = {name for name in inspect.signature(sync_groups.Video.revise).parameters if name not in control}
    assert offered | {"segments"} == set(revision.ReviseRequest.model_fields)
    assert set(SegmentEdit.model_fields) == set(transcript.SegmentEdit.model_fields)
