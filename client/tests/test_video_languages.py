"""``video.translate`` extensions: more target languages in one submission, and the video's own subtitles as a file part."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest

from conftest import MAIN, LoopbackServer, Recorded, Reply, added_task_id, form_fields, form_parts, serve_submission, task_record
from mediatrans_client import AdditionalTask, AsyncClient, Client, InvalidRequestError, QuotaExceededError, Task

SRT = b"1\r\n00:00:01,000 --> 00:00:02,500\r\nHello, \xc3\xa9veryone.\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nBye.\r\n"


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "talk.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)))
    return path


@pytest.fixture
def subtitles(tmp_path: Path) -> Path:
    path = tmp_path / "talk.en.srt"
    path.write_bytes(SRT)
    return path


def test_additional_languages_are_sent_comma_joined_and_their_tasks_exposed(
    server: LoopbackServer, client: Client, video: Path
) -> None:
    seen = serve_submission(server)
    task = client.video.translate(video, target_lang="es", additional_target_langs=["fr", "de"], output_format="vtt")
    assert form_fields(seen[0]) == {"target_lang": "es", "additional_target_langs": "fr,de", "output_format": "vtt"}
    assert form_parts(seen[0])["file"] == ("talk.mp4", video.read_bytes())
    assert task.task_id == MAIN
    assert task.additional_tasks == [
        AdditionalTask(target_lang="fr", task_id=added_task_id("fr")),
        AdditionalTask(target_lang="de", task_id=added_task_id("de")),
    ]
    assert [(r.method, r.path) for r in server.requests] == [("POST", "/v1/video/translate")]  # not waited for


def test_a_tuple_an_empty_list_and_a_string_of_languages(server: LoopbackServer, client: Client, video: Path) -> None:
    seen = serve_submission(server)
    client.video.translate(video, target_lang="es", additional_target_langs=("ja",))
    client.video.translate(video, target_lang="es", additional_target_langs=[])
    client.video.translate(video, target_lang="es", additional_target_langs="fr,it")
    assert [form_fields(request).get("additional_target_langs") for request in seen] == ["ja", None, "fr,it"]
    assert client.video.translate(video, target_lang="es").additional_tasks is None


def test_the_subtitle_file_goes_as_its_own_part_with_its_name(
    server: LoopbackServer, client: Client, video: Path, subtitles: Path
) -> None:
    seen = serve_submission(server)
    client.video.translate(video, target_lang="es", subtitle_file=subtitles, output_format="burned_video")
    parts = form_parts(seen[0])
    assert parts["subtitle_file"] == ("talk.en.srt", SRT)
    assert parts["file"] == ("talk.mp4", video.read_bytes())
    assert form_fields(seen[0]) == {"target_lang": "es", "output_format": "burned_video"}


def test_subtitles_as_bytes_or_an_open_file(server: LoopbackServer, client: Client, video: Path, subtitles: Path) -> None:
    seen = serve_submission(server)
    client.video.translate(video, target_lang="es", subtitle_file=SRT)
    with subtitles.open("rb") as file:
        client.video.translate(video, target_lang="es", subtitle_file=file)
    client.video.translate(video, target_lang="es", subtitle_file=io.BytesIO(b"WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n"))
    assert form_parts(seen[0])["subtitle_file"] == ("subtitles", SRT)
    assert form_parts(seen[1])["subtitle_file"] == ("talk.en.srt", SRT)
    assert form_parts(seen[2])["subtitle_file"] == ("subtitles", b"WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n")


def test_a_video_url_with_subtitles_is_a_multipart_form(server: LoopbackServer, client: Client) -> None:
    seen = serve_submission(server)
    client.video.translate(
        "https://cdn.example.com/talk.mp4", target_lang="es", subtitle_file=SRT, additional_target_langs=["fr"]
    )
    assert seen[0].headers["content-type"].startswith("multipart/form-data")
    assert form_fields(seen[0]) == {
        "target_lang": "es",
        "additional_target_langs": "fr",
        "video_url": "https://cdn.example.com/talk.mp4",
    }
    assert form_parts(seen[0])["subtitle_file"] == ("subtitles", SRT) and "file" not in form_parts(seen[0])


def test_a_retry_sends_the_same_subtitles_under_the_same_key(server: LoopbackServer, client: Client, video: Path) -> None:
    attempts: list[Recorded] = []

    @server.route("POST", "/v1/video/translate")
    def busy_once(request: Recorded) -> Reply:
        attempts.append(request)
        if len(attempts) == 1:
            return Reply(503, {"code": "SERVICE_BUSY", "message": "busy", "request_id": "r1"}, {"Retry-After": "0"})
        return Reply(200, task_record(MAIN, "queued"))

    client.video.translate(video, target_lang="es", subtitle_file=io.BytesIO(SRT))  # read once, sent twice
    assert len(attempts) == 2 and len({a.headers["idempotency-key"] for a in attempts}) == 1
    assert [form_parts(a)["subtitle_file"] for a in attempts] == [("subtitles", SRT)] * 2


def test_a_missing_subtitle_file_raises_before_any_request(server: LoopbackServer, client: Client, video: Path) -> None:
    with pytest.raises(FileNotFoundError):
        client.video.translate(video, target_lang="es", subtitle_file=video.with_name("missing.srt"))
    assert server.requests == []


def test_with_wait_only_the_main_task_is_waited_for_and_the_others_still_listed(
    server: LoopbackServer, client: Client, video: Path
) -> None:
    serve_submission(server)
    polls = iter([task_record(MAIN, "processing", 30, "recognizing")])
    server.route("GET", f"/v1/video/task/{MAIN}")(lambda r: Reply(200, next(polls, task_record(MAIN, "completed", 100))))
    task = client.video.translate(video, target_lang="es", additional_target_langs=["fr"], wait=True, poll_interval=0.01)
    assert task.status == "completed" and task.progress == 100
    assert task.additional_tasks == [AdditionalTask(target_lang="fr", task_id=added_task_id("fr"))]
    assert len(server.requests_to("GET", f"/v1/video/task/{MAIN}")) == 2
    assert server.requests_to("GET", f"/v1/video/task/{added_task_id('fr')}") == []


@pytest.mark.parametrize(
    ("status", "body", "error"),
    [
        (
            400,
            {"code": "INVALID_PARAMETER", "message": "subtitle_file: line 5: the cue ends before it starts."},
            InvalidRequestError,
        ),
        (400, {"code": "INVALID_LANG_CODE", "message": "Unsupported target xx."}, InvalidRequestError),
        (402, {"code": "QUOTA_EXCEEDED", "message": "pending_tasks cap."}, QuotaExceededError),
    ],
    ids=["bad-subtitles", "bad-language", "cap"],
)
def test_refusals_map_to_their_class(
    server: LoopbackServer, client: Client, video: Path, status: int, body: dict[str, str], error: type[Exception]
) -> None:
    server.route("POST", "/v1/video/translate")(lambda r: Reply(status, {**body, "request_id": "rq-1"}))
    with pytest.raises(error) as info:
        client.video.translate(video, target_lang="es", additional_target_langs=["xx"], subtitle_file=SRT)
    exc: Any = info.value
    assert (exc.code, exc.status, exc.message, exc.request_id) == (body["code"], status, body["message"], "rq-1")
    assert len(server.requests) == 1


def test_the_async_client_sends_the_same_request_and_waits_alike(server: LoopbackServer, video: Path) -> None:
    seen = serve_submission(server)
    server.route("GET", f"/v1/video/task/{MAIN}")(lambda r: Reply(200, task_record(MAIN, "completed", 100)))

    async def run() -> Task:
        async with AsyncClient(server.base_url, "tok") as c:
            return await c.video.translate(
                video, target_lang="es", additional_target_langs=("fr", "de"), subtitle_file=SRT, wait=True, poll_interval=0.01
            )

    task = asyncio.run(run())
    assert task.status == "completed" and [t.target_lang for t in task.additional_tasks or []] == ["fr", "de"]
    assert form_fields(seen[0]) == {"target_lang": "es", "additional_target_langs": "fr,de"}
    assert form_parts(seen[0])["subtitle_file"] == ("subtitles", SRT)
    assert task.model_dump(mode="json")["additional_tasks"][1] == {"target_lang": "de", "task_id": added_task_id("de")}
