"""Adding a language to a completed task: the request sent, its key, waiting for the new task, errors, the async mirror."""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from typing import Any

import pytest

from conftest import PARENT, SERVICE_ROOT, LoopbackServer, Recorded, Reply, added_task_id, serve_add_language, task_record
from mediatrans_client import (
    AsyncClient,
    Client,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    QuotaExceededError,
    Task,
    TaskFailedError,
)
from mediatrans_client import _async_resources as async_groups
from mediatrans_client import _sync_resources as sync_groups

ADD_PATH = f"/v1/video/task/{PARENT}/translations"
GERMAN = added_task_id("de")


def test_add_language_posts_the_target_and_only_the_choices_given(server: LoopbackServer, client: Client) -> None:
    seen = serve_add_language(server)
    task = client.video.add_language(
        PARENT,
        "de",
        output_format="vtt",
        bilingual=False,
        subtitle_max_duration=6.5,
        engine="professional",
        glossary_id="g-1",
        profanity_filter=True,
        idempotency_key="k-1",
    )
    assert isinstance(task, Task)
    assert (task.task_id, task.status, task.parent_task_id, task.estimated_seconds) == (GERMAN, "queued", PARENT, 41)
    assert task.model_extra == {"target_lang": "de"}
    assert [(r.method, r.path) for r in server.requests] == [("POST", ADD_PATH)]  # not waited for: no poll
    request = seen[0]
    assert request.headers["idempotency-key"] == "k-1" and request.headers["content-type"] == "application/json"
    assert request.headers["authorization"] == "Bearer mt_test_token"
    assert json.loads(request.body) == {
        "target_lang": "de",
        "output_format": "vtt",
        "bilingual": False,
        "subtitle_max_duration": 6.5,
        "engine": "professional",
        "glossary_id": "g-1",
        "profanity_filter": True,
    }


def test_without_choices_only_the_target_is_sent_with_a_fresh_key(server: LoopbackServer, client: Client) -> None:
    seen = serve_add_language(server)
    client.video.add_language(PARENT, "fr")
    client.video.add_language(PARENT, "fr", output_format="vtt", extra={"output_format": "srt", "x_extension": 1})
    assert json.loads(seen[0].body) == {"target_lang": "fr"}
    assert json.loads(seen[1].body) == {"target_lang": "fr", "output_format": "srt", "x_extension": 1}  # extra wins
    keys = [request.headers["idempotency-key"] for request in seen]
    assert all(keys) and keys[0] != keys[1]


def test_a_retried_request_keeps_its_key(server: LoopbackServer, client: Client) -> None:
    attempts: list[Recorded] = []

    @server.route("POST", ADD_PATH)
    def flaky(request: Recorded) -> Reply:
        attempts.append(request)
        if len(attempts) == 1:
            return Reply(503, {"code": "SERVICE_BUSY", "message": "busy", "request_id": "r1"}, {"Retry-After": "0"})
        return Reply(200, {"task_id": GERMAN, "status": "queued", "parent_task_id": PARENT, "target_lang": "de"})

    assert client.video.add_language(PARENT, "de", enable_dubbing=True).task_id == GERMAN
    assert len(attempts) == 2 and len({a.headers["idempotency-key"] for a in attempts}) == 1
    assert attempts[0].body == attempts[1].body


def test_with_wait_the_new_task_is_polled_until_completed(server: LoopbackServer, client: Client) -> None:
    serve_add_language(server)
    records = iter([task_record(GERMAN, "processing", 40, "translating", parent_task_id=PARENT)])
    done = task_record(GERMAN, "completed", 100, parent_task_id=PARENT, result={"subtitle_url": "/v1/files/de/talk.srt"})
    server.route("GET", f"/v1/video/task/{GERMAN}")(lambda r: Reply(200, next(records, done)))
    progress: list[tuple[str, int | None]] = []
    task = client.video.add_language(
        PARENT, "de", wait=True, poll_interval=0.01, on_progress=lambda t: progress.append((t.status, t.progress))
    )
    assert task.status == "completed" and task.parent_task_id == PARENT
    assert task.result is not None and task.result.subtitle_url == "/v1/files/de/talk.srt"
    assert progress == [("processing", 40), ("completed", 100)]
    assert len(server.requests_to("GET", f"/v1/video/task/{GERMAN}")) == 2


def test_a_new_task_that_fails_while_waited_for_raises(server: LoopbackServer, client: Client) -> None:
    serve_add_language(server)
    failed = task_record(GERMAN, "failed", 50, parent_task_id=PARENT, error={"code": "TRANSLATION_FAILED", "message": "no"})
    server.route("GET", f"/v1/video/task/{GERMAN}")(lambda r: Reply(200, failed))
    with pytest.raises(TaskFailedError) as info:
        client.video.add_language(PARENT, "de", wait=True, poll_interval=0.01)
    assert info.value.code == "TRANSLATION_FAILED" and info.value.task.status == "failed"


REFUSALS: list[tuple[int, dict[str, Any], type[Exception]]] = [
    (404, {"code": "TASK_NOT_FOUND", "message": "No such task."}, NotFoundError),
    (409, {"code": "CONFLICT", "message": "The task is not completed."}, ConflictError),
    (400, {"code": "INVALID_LANG_CODE", "message": "Unsupported target xx."}, InvalidRequestError),
    (400, {"code": "INVALID_PARAMETER", "message": "Bad field.", "details": [{"field": "source_lang"}]}, InvalidRequestError),
    (402, {"code": "QUOTA_EXCEEDED", "message": "Quota spent."}, QuotaExceededError),
]


@pytest.mark.parametrize(("status", "body", "error"), REFUSALS, ids=[body["code"] for _, body, _ in REFUSALS])
def test_refusals_map_to_their_class(
    server: LoopbackServer, client: Client, status: int, body: dict[str, Any], error: type[Exception]
) -> None:
    server.route("POST", ADD_PATH)(lambda r: Reply(status, {**body, "request_id": "rq-1"}))
    with pytest.raises(error) as info:
        client.video.add_language(PARENT, "xx", extra={"source_lang": "en"})
    exc: Any = info.value
    assert (exc.code, exc.status, exc.request_id, exc.message) == (body["code"], status, "rq-1", body["message"])
    assert exc.details == body.get("details", [])
    assert len(server.requests) == 1  # a refusal is not retried


def test_the_async_client_adds_a_language_alike(server: LoopbackServer) -> None:
    seen = serve_add_language(server)
    server.route("GET", f"/v1/video/task/{GERMAN}")(
        lambda r: Reply(200, task_record(GERMAN, "completed", 100, parent_task_id=PARENT))
    )

    async def run() -> tuple[Task, Task]:
        async with AsyncClient(server.base_url, "tok") as c:
            queued = await c.video.add_language(PARENT, "fr", subtitle_preset="broadcast")
            done = await c.video.add_language(
                PARENT, "de", dubbing_voice="original", idempotency_key="k-a", wait=True, poll_interval=0.01
            )
            return queued, done

    queued, done = asyncio.run(run())
    assert (queued.task_id, queued.status, queued.parent_task_id) == (added_task_id("fr"), "queued", PARENT)
    assert (done.task_id, done.status, done.parent_task_id) == (GERMAN, "completed", PARENT)
    assert json.loads(seen[0].body) == {"target_lang": "fr", "subtitle_preset": "broadcast"}
    assert json.loads(seen[1].body) == {"target_lang": "de", "dubbing_voice": "original"}
    assert seen[0].headers["idempotency-key"] and seen[1].headers["idempotency-key"] == "k-a"


def test_sync_and_async_add_language_take_the_same_arguments() -> None:
    sync_method = inspect.signature(sync_groups.Video.add_language)
    async_method = inspect.signature(async_groups.AsyncVideo.add_language)
    assert list(sync_method.parameters) == list(async_method.parameters)


def test_the_arguments_match_the_service_request_model() -> None:
    """Every field the service's body accepts is an argument, and every argument a field, besides the client's own."""
    if str(SERVICE_ROOT) not in sys.path:
        sys.path.insert(0, str(SERVICE_ROOT))
    added_language = pytest.importorskip("core.specs.added_language")
    control = {"self", "task_id", "extra", "idempotency_key", "wait", "on_progress", "poll_interval", "timeout"}
    offered = {name for name in inspect.signature(sync_groups.Video.add_language).parameters if name not in control}
    assert offered == set(added_language.AddLanguageRequest.model_fields)
