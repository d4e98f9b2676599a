"""``mediatrans video translate --to es,fr`` and ``mediatrans subtitles translate`` as subprocesses against a loopback
server: one submission for every language, waiting for every task, per-language folders, refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import MAIN, LoopbackServer, Reply, added_task_id, form_fields, form_parts, run, serve_submission, task_record

SRT = b"1\n00:00:01,000 --> 00:00:02,500\nHello everyone.\n"
LANGS = ("de", "fr", "it", "ja", "ko", "pt-BR", "es", "nl", "pl", "sv", "zh-Hans")


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "talk.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(256))
    return path


@pytest.fixture
def subtitles(tmp_path: Path) -> Path:
    path = tmp_path / "talk.en.srt"
    path.write_bytes(SRT)
    return path


def serve_outcome(server: LoopbackServer, task_id: str, lang: str, status: str = "completed") -> None:
    """``task_id`` answers its final status at once; completed, it links a ``talk.srt`` (every task the same name)
    whose text names ``lang``."""
    outcome: dict[str, Any] = {"result": {"subtitle_url": f"{server.base_url}/v1/files/{task_id}/talk.srt"}}
    if status != "completed":
        outcome = {"error": {"code": "TRANSLATION_FAILED", "message": f"{lang} failed"}}
    record = task_record(task_id, status, 100 if status == "completed" else 50, **outcome)
    server.route("GET", f"/v1/video/task/{task_id}")(lambda r: Reply(200, record))
    server.route("GET", f"/v1/files/{task_id}/talk.srt")(lambda r: Reply(200, f"1\n{lang}\n".encode()))


def test_several_languages_are_one_submission_with_the_subtitles(
    server: LoopbackServer, env: dict[str, str], video: Path, subtitles: Path
) -> None:
    seen = serve_submission(server)
    result = run(["--json", "video", "translate", str(video), "--to", "es, fr,de,FR", "--subtitles", str(subtitles)], env)
    assert result.returncode == 0, result.stderr
    [request] = seen
    assert form_fields(request) == {
        "target_lang": "es",
        "additional_target_langs": "fr,de",
        "source_lang": "auto",
        "output_format": "srt",
    }
    assert form_parts(request)["subtitle_file"] == ("talk.en.srt", SRT)
    assert form_parts(request)["file"][0] == "talk.mp4"
    record = json.loads(result.stdout)
    assert record["task_id"] == MAIN and record["failed"] == []
    assert [(task["lang"], task["task_id"], task["status"]) for task in record["tasks"]] == [
        ("es", MAIN, "queued"),
        ("fr", added_task_id("fr"), "queued"),
        ("de", added_task_id("de"), "queued"),
    ]
    assert [r.method for r in server.requests] == ["POST"]  # not waited for
    human = run(["video", "translate", str(video), "--to", "es,fr"], env)
    assert human.returncode == 0, human.stderr
    lines = human.stdout.splitlines()
    assert lines[lines.index("language  fr") + 1] == f"task      {added_task_id('fr')}"
    assert "mediatrans video status" in human.stderr


def test_out_waits_for_every_task_and_downloads_each_into_its_language_folder(
    server: LoopbackServer, env: dict[str, str], video: Path, tmp_path: Path
) -> None:
    serve_submission(server)
    for task_id, lang in ((MAIN, "es"), (added_task_id("fr"), "fr")):
        serve_outcome(server, task_id, lang)
    out = tmp_path / "subs"
    result = run(["--json", "video", "translate", str(video), "--to", "es,fr", "--out", str(out), "--poll-interval", "1"], env)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert [(task["lang"], task["status"], task["downloaded"]) for task in record["tasks"]] == [
        ("es", "completed", [str(out / "es" / "talk.srt")]),
        ("fr", "completed", [str(out / "fr" / "talk.srt")]),
    ]
    assert (out / "es" / "talk.srt").read_text() == "1\nes\n"  # the same file name, nothing overwritten
    assert (out / "fr" / "talk.srt").read_text() == "1\nfr\n"
    assert sorted(path.name for path in out.iterdir()) == ["es", "fr"]
    assert server.requests_to("GET", f"/v1/video/task/{added_task_id('fr')}")


def test_one_language_keeps_the_single_task_output_and_folder(
    server: LoopbackServer, env: dict[str, str], video: Path, tmp_path: Path
) -> None:
    seen = serve_submission(server)
    serve_outcome(server, MAIN, "es")
    out = tmp_path / "subs"
    result = run(["--json", "video", "translate", str(video), "--to", "es", "--out", str(out), "--poll-interval", "1"], env)
    assert result.returncode == 0, result.stderr
    assert "additional_target_langs" not in form_fields(seen[0]) and "subtitle_file" not in form_parts(seen[0])
    record = json.loads(result.stdout)
    assert (record["task_id"], record["status"], record["downloaded"]) == (MAIN, "completed", [str(out / "talk.srt")])
    assert "tasks" not in record


@pytest.mark.parametrize(
    ("command", "targets", "message"),
    [
        ("video", "es,,fr", "empty language code in 'es,,fr'"),
        ("video", ",".join(LANGS), "at most 10 languages at a time, got 11"),
        ("subtitles", "de,../fr", "not a language code: '../fr'"),
        ("subtitles", " ", "give at least one language code"),
    ],
)
def test_a_bad_language_list_is_refused_before_any_request(
    server: LoopbackServer, env: dict[str, str], video: Path, subtitles: Path, command: str, targets: str, message: str
) -> None:
    serve_submission(server)
    source = video if command == "video" else subtitles
    result = run([command, "translate", str(source), "--to", targets], env)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert server.requests == []


def test_missing_subtitles_are_refused_before_any_request(server: LoopbackServer, env: dict[str, str], video: Path) -> None:
    serve_submission(server)
    result = run(["video", "translate", str(video), "--to", "es", "--subtitles", str(video.with_name("none.srt"))], env)
    assert result.returncode == 2 and "--subtitles" in result.stderr, result.stderr
    assert server.requests == []


def test_subtitles_translate_submits_once_and_downloads_every_language(
    server: LoopbackServer, env: dict[str, str], subtitles: Path, tmp_path: Path
) -> None:
    seen = serve_submission(server, "/v1/subtitles/translate")
    for task_id, lang in ((MAIN, "de"), (added_task_id("ja"), "ja")):
        serve_outcome(server, task_id, lang)
    out = tmp_path / "subs"
    args = ["--from", "en", "--to", "de,ja", "--format", "vtt", "--max-line-length", "32", "-f", "subtitle_position=top"]
    result = run(["--json", "subtitles", "translate", str(subtitles), *args, "--out", str(out), "--poll-interval", "1"], env)
    assert result.returncode == 0, result.stderr
    [request] = seen
    assert form_fields(request) == {
        "target_lang": "de",
        "source_lang": "en",
        "additional_target_langs": "ja",
        "output_format": "vtt",
        "max_subtitle_length": "32",
        "subtitle_position": "top",
    }
    assert form_parts(request)["file"] == ("talk.en.srt", SRT)
    record = json.loads(result.stdout)
    assert [(task["lang"], task["downloaded"]) for task in record["tasks"]] == [
        ("de", [str(out / "de" / "talk.srt")]),
        ("ja", [str(out / "ja" / "talk.srt")]),
    ]
    assert (out / "de" / "talk.srt").read_text() == "1\nde\n" and (out / "ja" / "talk.srt").read_text() == "1\nja\n"


def test_a_task_that_fails_exits_9_after_the_others_are_followed(
    server: LoopbackServer, env: dict[str, str], subtitles: Path, tmp_path: Path
) -> None:
    serve_submission(server, "/v1/subtitles/translate")
    serve_outcome(server, MAIN, "de")
    serve_outcome(server, added_task_id("ja"), "ja", "failed")
    serve_outcome(server, added_task_id("ko"), "ko")
    out = tmp_path / "subs"
    result = run(
        ["--json", "subtitles", "translate", str(subtitles), "--to", "de,ja,ko", "--out", str(out), "--poll-interval", "1"], env
    )
    assert result.returncode == 9, result.stderr
    record = json.loads(result.stdout)
    assert [(task["lang"], task["status"]) for task in record["tasks"]] == [
        ("de", "completed"),
        ("ja", "failed"),
        ("ko", "completed"),
    ]
    [failed] = record["failed"]
    assert (failed["lang"], failed["type"], failed["code"]) == ("ja", "TaskFailedError", "TRANSLATION_FAILED")
    assert sorted(path.name for path in out.iterdir()) == ["de", "ko"]


def test_a_refused_file_exits_5_with_the_service_error(server: LoopbackServer, env: dict[str, str], subtitles: Path) -> None:
    message = "The subtitle file: line 3: the cue ends before it starts (00:00:05,000 --> 00:00:04,000)."
    server.route("POST", "/v1/subtitles/translate")(
        lambda r: Reply(400, {"code": "INVALID_PARAMETER", "message": message, "request_id": "rq-400"})
    )
    result = run(["--json", "subtitles", "translate", str(subtitles), "--to", "de,ja"], env)
    assert result.returncode == 5 and result.stdout == ""
    error = json.loads(result.stderr)["error"]
    assert (error["type"], error["code"], error["status"], error["message"]) == (
        "InvalidRequestError",
        "INVALID_PARAMETER",
        400,
        message,
    )
    assert len(server.requests) == 1
    human = run(["subtitles", "translate", str(subtitles), "--to", "de"], env)
    assert (
        human.returncode == 5 and "line 3: the cue ends before it starts" in human.stderr and "INVALID_PARAMETER" in human.stderr
    )
