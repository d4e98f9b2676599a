"""``subtitles.translate``: the request sent, its key, polling the task as a video task, errors, the async mirror."""

from __future__ import annotations

import asyncio
import inspect
import io
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import (
    MAIN,
    SERVICE_ROOT,
    LoopbackServer,
    Recorded,
    Reply,
    added_task_id,
    form_fields,
    form_parts,
    serve_submission,
    task_record,
)
from mediatrans_client import (
    AdditionalTask,
    AsyncClient,
    Client,
    InvalidRequestError,
    QuotaExceededError,
    Task,
    TaskFailedError,
)
from mediatrans_client import _async_resources as async_groups
from mediatrans_client import _sync_resources as sync_groups

SUBMIT = "/v1/subtitles/translate"
VTT = b"WEBVTT\n\n00:00:01.000 --> 00:00:02.500\n<v Ana>Hello everyone.\n\n00:00:03.000 --> 00:00:04.000\nBye.\n"


@pytest.fixture
def subtitle_path(tmp_path: Path) -> Path:
    path = tmp_path / "talk.en.vtt"
    path.write_bytes(VTT)
    return path


def test_the_file_and_the_choices_given_are_posted_as_a_form(server: LoopbackServer, client: Client, subtitle_path: Path) -> None:
    seen = serve_submission(server, SUBMIT)
    task = client.subtitles.translate(
        subtitle_path,
        "de",
        source_lang="en",
        additional_target_langs=["ja", "ko"],
        output_format="all",
        bilingual=False,
        subtitle_max_duration=6.5,
        profanity_filter=True,
        idempotency_key="k-1",
    )
    assert isinstance(task, Task) and (task.task_id, task.status) == (MAIN, "queued")
    assert task.additional_tasks == [
        AdditionalTask(target_lang="ja", task_id=added_task_id("ja")),
        AdditionalTask(target_lang="ko", task_id=added_task_id("ko")),
    ]
    assert [(r.method, r.path) for r in server.requests] == [("POST", SUBMIT)]  # not waited for: no poll
    request = seen[0]
    assert request.headers["idempotency-key"] == "k-1" and request.headers["authorization"] == "Bearer mt_test_token"
    assert form_parts(request)["file"] == ("talk.en.vtt", VTT)
    assert form_fields(request) == {
        "target_lang": "de",
        "source_lang": "en",
        "additional_target_langs": "ja,ko",
        "output_format": "all",
        "bilingual": "false",
        "subtitle_max_duration": "6.5",
        "profanity_filter": "true",
    }


def test_only_the_target_is_sent_by_default_with_a_fresh_key_and_extra_over_it(server: LoopbackServer, client: Client) -> None:
    seen = serve_submission(server, SUBMIT)
    client.subtitles.translate(VTT, "fr")
    client.subtitles.translate(io.BytesIO(VTT), "fr", output_format="vtt", extra={"output_format": "srt", "x_extension": 1})
    assert form_fields(seen[0]) == {"target_lang": "fr"}
    assert form_fields(seen[1]) == {"target_lang": "fr", "output_format": "srt", "x_extension": "1"}
    assert [form_parts(request)["file"] for request in seen] == [("subtitles", VTT)] * 2
    keys = [request.headers["idempotency-key"] for request in seen]
    assert all(keys) and keys[0] != keys[1]


def test_with_wait_the_task_is_polled_as_a_video_task(server: LoopbackServer, client: Client, subtitle_path: Path) -> None:
    serve_submission(server, SUBMIT)
    polls = iter([task_record(MAIN, "processing", 40, "translating")])
    done = task_record(MAIN, "completed", 100, result={"subtitle_url": "/v1/files/c/talk.de.srt"})
    server.route("GET", f"/v1/video/task/{MAIN}")(lambda r: Reply(200, next(polls, done)))
    progress: list[tuple[str, int | None]] = []
    task = client.subtitles.translate(
        subtitle_path,
        "de",
        additional_target_langs=["ja"],
        wait=True,
        poll_interval=0.01,
        on_progress=lambda t: progress.append((t.status, t.progress)),
    )
    assert task.status == "completed" and task.result is not None and task.result.subtitle_url == "/v1/files/c/talk.de.srt"
    assert progress == [("processing", 40), ("completed", 100)]
    assert task.additional_tasks == [AdditionalTask(target_lang="ja", task_id=added_task_id("ja"))]  # listed, not waited for
    assert [r.path for r in server.requests if r.method == "GET"] == [f"/v1/video/task/{MAIN}"] * 2


def test_a_task_that_fails_while_waited_for_raises(server: LoopbackServer, client: Client) -> None:
    serve_submission(server, SUBMIT)
    failed = task_record(MAIN, "failed", 50, error={"code": "TRANSLATION_FAILED", "message": "no"})
    server.route("GET", f"/v1/video/task/{MAIN}")(lambda r: Reply(200, failed))
    with pytest.raises(TaskFailedError) as info:
        client.subtitles.translate(VTT, "de", wait=True, poll_interval=0.01)
    assert info.value.code == "TRANSLATION_FAILED" and info.value.task.status == "failed"


REFUSALS: list[tuple[int, dict[str, Any], type[Exception]]] = [
    (
        400,
        {"code": "INVALID_PARAMETER", "message": "The subtitle file: line 12: the cue ends before it starts."},
        InvalidRequestError,
    ),
    (400, {"code": "INVALID_LANG_CODE", "message": "en cannot be translated into xx."}, InvalidRequestError),
    (400, {"code": "INVALID_PARAMETER", "message": "Bad field.", "details": [{"field": "output_format"}]}, InvalidRequestError),
    (413, {"code": "PAYLOAD_TOO_LARGE", "message": "The body is over 4 MB."}, InvalidRequestError),
    (402, {"code": "QUOTA_EXCEEDED", "message": "Quota spent."}, QuotaExceededError),
]


@pytest.mark.parametrize(
    ("status", "body", "error"), REFUSALS, ids=["bad-line", "bad-language", "bad-field", "too-large", "quota"]
)
def test_refusals_map_to_their_class(
    server: LoopbackServer, client: Client, status: int, body: dict[str, Any], error: type[Exception]
) -> None:
    server.route("POST", SUBMIT)(lambda r: Reply(status, {**body, "request_id": "rq-1"}))
    with pytest.raises(error) as info:
        client.subtitles.translate(VTT, "xx", extra={"output_format": "burned_video"})
    exc: Any = info.value
    assert (exc.code, exc.status, exc.request_id, exc.message) == (body["code"], status, "rq-1", body["message"])
    assert exc.details == body.get("details", [])
    assert len(server.requests) == 1  # a refusal is not retried


def test_a_retried_request_keeps_its_key_and_its_file(server: LoopbackServer, client: Client) -> None:
    attempts: list[Recorded] = []

    @server.route("POST", SUBMIT)
    def busy_once(request: Recorded) -> Reply:
        attempts.append(request)
        if len(attempts) == 1:
            return Reply(503, {"code": "SERVICE_BUSY", "message": "busy", "request_id": "r1"}, {"Retry-After": "0"})
        return Reply(200, task_record(MAIN, "queued"))

    assert client.subtitles.translate(io.BytesIO(VTT), "de").task_id == MAIN
    assert len(attempts) == 2 and len({a.headers["idempotency-key"] for a in attempts}) == 1
    assert [form_parts(a)["file"] for a in attempts] == [("subtitles", VTT)] * 2


def test_the_async_client_translates_subtitles_alike(server: LoopbackServer, subtitle_path: Path) -> None:
    seen = serve_submission(server, SUBMIT)
    server.route("GET", f"/v1/video/task/{MAIN}")(lambda r: Reply(200, task_record(MAIN, "completed", 100)))

    async def run() -> tuple[Task, Task]:
        async with AsyncClient(server.base_url, "tok") as c:
            queued = await c.subtitles.translate(subtitle_path, "fr", subtitle_preset="broadcast")
            done = await c.subtitles.translate(
                VTT, "de", additional_target_langs=("ja",), idempotency_key="k-a", wait=True, poll_interval=0.01
            )
            return queued, done

    queued, done = asyncio.run(run())
    assert (queued.task_id, queued.status, queued.additional_tasks) == (MAIN, "queued", None)
    assert done.status == "completed" and done.additional_tasks == [AdditionalTask(target_lang="ja", task_id=added_task_id("ja"))]
    assert form_fields(seen[0]) == {"target_lang": "fr", "subtitle_preset": "broadcast"}
    assert form_parts(seen[0])["file"] == ("talk.en.vtt", VTT)
    assert form_fields(seen[1]) == {"target_lang": "de", "additional_target_langs": "ja"}
    assert seen[1].headers["idempotency-key"] == "k-a"


def test_sync_and_async_take_the_same_arguments() -> None:
    sync_method = inspect.signature(sync_groups.Subtitles.translate)
    async_method = inspect.signature(async_groups.AsyncSubtitles.translate)
    assert list(sync_method.parameters) == list(async_method.parameters)


def test_the_arguments_match_the_service_form_model() -> None:
    """Every field the service's form accepts is an argument, and every argument a field, besides the client's own."""
    if str(SERVICE_ROOT) not in sys.path:
        sys.path.insert(0, str(SERVICE_ROOT))
    schemas = pytest.importorskip("serve_app.schemas.subtitles")
    control = {"self", "file", "extra", "idempotency_key", "wait", "on_progress", "poll_interval", "timeout"}
    offered = {name for name in inspect.signature(sync_groups.Subtitles.translate).parameters if name not in control}
    assert offered == set(schemas.SubtitleTranslateParams.model_fields)
