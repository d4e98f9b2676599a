"""``mediatrans video add-language`` as a subprocess against a loopback server: one task per language, waiting, files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import PARENT, LoopbackServer, Recorded, Reply, added_task_id, run, serve_add_language, task_record

LANGS = ("de", "fr", "it", "ja", "ko", "pt-BR", "es", "nl", "pl", "sv", "zh-Hans")


def serve_results(server: LoopbackServer, outcomes: dict[str, str]) -> None:
    """Each language's task answers its final status at once (``completed`` or ``failed``)."""
    for lang, status in outcomes.items():
        serve_result(server, lang, status)


def serve_result(server: LoopbackServer, lang: str, status: str) -> None:
    """``lang``'s task; completed, it links a ``talk.srt`` of its own (every language the same name) naming the language."""
    task_id = added_task_id(lang)
    outcome: dict[str, Any] = {"result": {"subtitle_url": f"{server.base_url}/v1/files/{task_id}/talk.srt"}}
    if status != "completed":
        outcome = {"error": {"code": "TRANSLATION_FAILED", "message": f"{lang} failed"}}
    record = task_record(task_id, status, 100 if status == "completed" else 50, parent_task_id=PARENT, **outcome)
    server.route("GET", f"/v1/video/task/{task_id}")(lambda r: Reply(200, record))
    server.route("GET", f"/v1/files/{task_id}/talk.srt")(lambda r: Reply(200, f"1\n00:00:00,000 --> {lang}\n".encode()))


def test_one_request_per_language_with_the_options_given(server: LoopbackServer, env: dict[str, str]) -> None:
    seen = serve_add_language(server)
    args = ["--format", "vtt", "--engine", "professional", "--glossary", "g-1", "--no-dub", "-f", "subtitle_size=30"]
    result = run(["--json", "video", "add-language", PARENT, "--to", "de, fr,DE,de", *args], env)
    assert result.returncode == 0, result.stderr
    choices = {
        "output_format": "vtt",
        "engine": "professional",
        "glossary_id": "g-1",
        "enable_dubbing": False,
        "subtitle_size": 30,
    }
    assert [json.loads(request.body) for request in seen] == [{"target_lang": "de", **choices}, {"target_lang": "fr", **choices}]
    assert len({request.headers["idempotency-key"] for request in seen}) == 2  # one task per language, each its own key
    record = json.loads(result.stdout)
    assert record["parent_task_id"] == PARENT and record["failed"] == []
    assert [(task["lang"], task["task_id"], task["status"]) for task in record["tasks"]] == [
        ("de", added_task_id("de"), "queued"),
        ("fr", added_task_id("fr"), "queued"),
    ]
    assert server.requests_to("GET", f"/v1/video/task/{added_task_id('de')}") == []  # not waited for


def test_each_task_is_printed_with_its_language(server: LoopbackServer, env: dict[str, str]) -> None:
    serve_add_language(server)
    result = run(["video", "add-language", PARENT, "--to", "de,fr"], env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for lang in ("de", "fr"):
        at = lines.index(f"language  {lang}")
        assert lines[at + 1] == f"task      {added_task_id(lang)}"
    assert "mediatrans video status" in result.stderr


def test_wait_and_out_download_each_language_into_its_own_folder(
    server: LoopbackServer, env: dict[str, str], tmp_path: Path
) -> None:
    serve_add_language(server)
    serve_results(server, {"de": "completed", "fr": "completed"})
    out = tmp_path / "subs"
    result = run(["--json", "video", "add-language", PARENT, "--to", "de,fr", "--out", str(out), "--poll-interval", "1"], env)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert [(task["lang"], task["status"], task["downloaded"]) for task in record["tasks"]] == [
        ("de", "completed", [str(out / "de" / "talk.srt")]),
        ("fr", "completed", [str(out / "fr" / "talk.srt")]),
    ]
    assert (out / "de" / "talk.srt").read_text() == "1\n00:00:00,000 --> de\n"  # the same file name, nothing overwritten
    assert (out / "fr" / "talk.srt").read_text() == "1\n00:00:00,000 --> fr\n"
    assert sorted(path.name for path in out.iterdir()) == ["de", "fr"]


@pytest.mark.parametrize(
    ("targets", "message"),
    [
        ("", "give at least one language code"),
        (" , ", "empty language code"),
        ("de,,fr", "empty language code in 'de,,fr'"),
        ("de,", "empty language code"),
        ("de,../fr", "not a language code: '../fr'"),
        (",".join(LANGS), "at most 10 languages at a time, got 11"),
    ],
)
def test_a_bad_language_list_is_refused_before_any_request(
    server: LoopbackServer, env: dict[str, str], targets: str, message: str
) -> None:
    serve_add_language(server)
    result = run(["video", "add-language", PARENT, "--to", targets], env)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert server.requests == []


def test_ten_languages_once_repeats_are_removed_are_accepted(server: LoopbackServer, env: dict[str, str]) -> None:
    seen = serve_add_language(server)
    result = run(["--json", "video", "add-language", PARENT, "--to", ",".join([*LANGS[:10], "DE", "fr"])], env)
    assert result.returncode == 0, result.stderr
    assert [json.loads(request.body)["target_lang"] for request in seen] == list(LANGS[:10])


def test_a_refused_language_does_not_stop_the_others(server: LoopbackServer, env: dict[str, str]) -> None:
    seen = serve_add_language(server, refused={"xx"})
    result = run(["--json", "video", "add-language", PARENT, "--to", "de,xx,fr"], env)
    assert result.returncode == 11, result.stderr
    assert [json.loads(request.body)["target_lang"] for request in seen] == ["de", "xx", "fr"]
    record = json.loads(result.stdout)
    assert [task["lang"] for task in record["tasks"]] == ["de", "fr"]
    [failed] = record["failed"]
    assert (failed["lang"], failed["type"], failed["code"], failed["status"]) == (
        "xx",
        "InvalidRequestError",
        "INVALID_LANG_CODE",
        400,
    )
    human = run(["video", "add-language", PARENT, "--to", "xx,de"], env)
    assert human.returncode == 11 and "error: xx: Unsupported target xx." in human.stderr
    assert f"task      {added_task_id('de')}" in human.stdout


def test_every_language_refused_exits_5_without_a_result(server: LoopbackServer, env: dict[str, str]) -> None:
    serve_add_language(server, refused={"xx", "yy"})
    result = run(["--json", "video", "add-language", PARENT, "--to", "xx,yy"], env)
    assert result.returncode == 5 and result.stdout == ""
    error = json.loads(result.stderr)["error"]
    assert error["code"] == "INVALID_LANG_CODE" and [f["lang"] for f in error["failed"]] == ["xx", "yy"]


@pytest.mark.parametrize(
    ("status", "code", "exit_code", "kind"),
    [(409, "CONFLICT", 5, "ConflictError"), (404, "TASK_NOT_FOUND", 4, "NotFoundError")],
)
def test_a_parent_that_cannot_be_extended_stops_at_the_first_request(
    server: LoopbackServer, env: dict[str, str], status: int, code: str, exit_code: int, kind: str
) -> None:
    server.route("POST", f"/v1/video/task/{PARENT}/translations")(
        lambda r: Reply(status, {"code": code, "message": "Not now.", "request_id": "rq-9"})
    )
    result = run(["--json", "video", "add-language", PARENT, "--to", "de,fr"], env)
    assert result.returncode == exit_code and result.stdout == ""
    error = json.loads(result.stderr)["error"]
    assert (error["type"], error["code"], error["status"], error["request_id"]) == (kind, code, status, "rq-9")
    assert len(server.requests) == 1


def test_an_error_after_some_tasks_were_created_still_prints_them(server: LoopbackServer, env: dict[str, str]) -> None:
    serve_add_language(server)
    created = server.routes[("POST", f"/v1/video/task/{PARENT}/translations")]

    def quota_after_german(request: Recorded) -> Reply:
        if json.loads(request.body)["target_lang"] == "de":
            return created(request)
        return Reply(402, {"code": "QUOTA_EXCEEDED", "message": "Quota spent.", "request_id": "rq-402"})

    server.route("POST", f"/v1/video/task/{PARENT}/translations")(quota_after_german)
    result = run(["--json", "video", "add-language", PARENT, "--to", "de,fr,it"], env)
    assert result.returncode == 6
    assert [(task["lang"], task["task_id"]) for task in json.loads(result.stdout)["tasks"]] == [("de", added_task_id("de"))]
    assert json.loads(result.stderr)["error"]["code"] == "QUOTA_EXCEEDED"
    assert len(server.requests) == 2  # it stopped at the refusal


def test_a_task_that_fails_while_waited_for_exits_9_after_the_others(
    server: LoopbackServer, env: dict[str, str], tmp_path: Path
) -> None:
    serve_add_language(server)
    serve_results(server, {"de": "failed", "fr": "completed"})
    out = tmp_path / "subs"
    result = run(["--json", "video", "add-language", PARENT, "--to", "de,fr", "--out", str(out), "--poll-interval", "1"], env)
    assert result.returncode == 9, result.stderr
    record = json.loads(result.stdout)
    assert [(task["lang"], task["status"]) for task in record["tasks"]] == [("de", "failed"), ("fr", "completed")]
    [failed] = record["failed"]
    assert (failed["lang"], failed["type"], failed["code"]) == ("de", "TaskFailedError", "TRANSLATION_FAILED")
    assert not (out / "de").exists() and (out / "fr" / "talk.srt").read_text() == "1\n00:00:00,000 --> fr\n"
