"""The ``mediatrans`` command run as a subprocess against a loopback server: exit codes, ``--json``, config, retries."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import MEDIATRANS, LoopbackServer, Recorded, Reply, run, task_record


def test_the_entry_point_is_installed() -> None:
    assert MEDIATRANS.exists(), "pip install ./client installs the `mediatrans` command"
    result = subprocess.run([str(MEDIATRANS), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    for command in ("video", "languages", "grammar", "tts", "voice", "game"):
        assert command in result.stdout


def test_video_translate_retries_into_one_task_waits_and_downloads(
    server: LoopbackServer, env: dict[str, str], tmp_path: Path
) -> None:
    created: dict[str, str] = {}
    attempts: list[Recorded] = []
    polls = iter([task_record("t1", "processing", 40, "translating", estimated_seconds=3)])

    @server.route("POST", "/v1/video/translate")
    def create(request: Recorded) -> Reply:
        attempts.append(request)
        if len(attempts) == 1:
            return Reply(429, {"code": "RATE_LIMITED", "message": "slow", "request_id": "r1"}, {"Retry-After": "1"})
        if len(attempts) == 2:
            return Reply(503, {"code": "SERVICE_BUSY", "message": "busy", "request_id": "r2"}, {"Retry-After": "1"})
        created.setdefault(request.headers["idempotency-key"], "t1")
        return Reply(200, task_record("t1", "queued", estimated_seconds=9))

    @server.route("GET", "/v1/video/task/t1")
    def poll(_: Recorded) -> Reply:
        done = task_record("t1", "completed", 100, result={"subtitle_url": f"{server.base_url}/v1/files/t1/talk.es.srt"})
        return Reply(200, next(polls, done))

    server.route("GET", "/v1/files/t1/talk.es.srt")(lambda _: Reply(200, b"1\n00:00:00,000 --> 00:00:01,000\nHola\n"))
    video = tmp_path / "talk.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(256))
    out = tmp_path / "subs"
    result = run(["--json", "video", "translate", str(video), "--to", "es", "--out", str(out), "--poll-interval", "1"], env)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["status"] == "completed" and record["task_id"] == "t1"
    assert len(attempts) == 3 and len({a.headers["idempotency-key"] for a in attempts}) == 1
    assert len(created) == 1  # three attempts, one task
    assert record["downloaded"] == [str(out / "talk.es.srt")]
    assert (out / "talk.es.srt").read_text().endswith("Hola\n")
    assert attempts[0].headers["authorization"] == "Bearer mt_cli_token"


ERRORS = [
    (401, {"code": 2001, "message": "bad token", "request_id": "rq-401"}, 3, "AuthenticationError"),
    (403, {"code": 2003, "message": "no scope", "request_id": "rq-403"}, 3, "PermissionDeniedError"),
    (404, {"code": "TASK_NOT_FOUND", "message": "no task", "request_id": "rq-404"}, 4, "NotFoundError"),
    (400, {"code": "INVALID_PARAMETER", "message": "bad", "request_id": "rq-400"}, 5, "InvalidRequestError"),
    (429, {"code": "RATE_LIMITED", "message": "slow", "request_id": "rq-429"}, 6, "RateLimitedError"),
    (402, {"code": "QUOTA_EXCEEDED", "message": "spent", "request_id": "rq-402"}, 6, "QuotaExceededError"),
    (500, {"code": "INTERNAL_ERROR", "message": "boom", "request_id": "rq-500"}, 7, "ServerError"),
    (503, {"code": "SERVICE_BUSY", "message": "busy", "request_id": "rq-503"}, 7, "ServiceBusyError"),
]


@pytest.mark.parametrize(("status", "body", "exit_code", "kind"), ERRORS)
def test_each_error_class_has_its_exit_code_and_json(
    server: LoopbackServer, env: dict[str, str], status: int, body: dict[str, Any], exit_code: int, kind: str
) -> None:
    server.route("GET", "/v1/video/task/t9")(lambda _: Reply(status, body))
    result = run(["--json", "--retries", "0", "video", "status", "t9"], env)
    assert result.returncode == exit_code
    assert result.stdout == ""
    error = json.loads(result.stderr)["error"]
    assert error["type"] == kind and error["request_id"] == body["request_id"] and error["status"] == status
    assert error["exit_code"] == exit_code
    human = run(["--retries", "0", "video", "status", "t9"], env)
    assert human.returncode == exit_code
    assert body["message"] in human.stderr and body["request_id"] in human.stderr and "hint:" in human.stderr


def test_an_unknown_route_says_to_check_the_base_url_not_the_id(server: LoopbackServer, env: dict[str, str]) -> None:
    server.route("GET", "/v1/video/task/t9")(
        lambda _: Reply(404, {"code": 2004, "message": "No such endpoint.", "request_id": "r"})
    )
    result = run(["--retries", "0", "video", "status", "t9"], env)
    assert result.returncode == 4 and "--base-url" in result.stderr and "Check the id" not in result.stderr
    server.route("GET", "/v1/video/task/t8")(
        lambda _: Reply(404, {"code": "TASK_NOT_FOUND", "message": "no task", "request_id": "r"})
    )
    assert "Check the id" in run(["--retries", "0", "video", "status", "t8"], env).stderr


def test_failed_task_unreachable_service_and_usage_errors(server: LoopbackServer, env: dict[str, str]) -> None:
    failed = task_record("t2", "failed", 30, error={"code": "EXTRACTION_FAILED", "message": "no audio"})
    server.route("GET", "/v1/video/task/t2")(lambda _: Reply(200, failed))
    assert run(["video", "status", "t2"], env).returncode == 9
    waited = run(["--json", "video", "status", "t2", "--wait", "--poll-interval", "1"], env)
    assert waited.returncode == 9 and json.loads(waited.stderr)["error"]["code"] == "EXTRACTION_FAILED"
    unreachable = run(["--retries", "0", "video", "status", "t2"], {**env, "MEDIATRANS_BASE_URL": "http://127.0.0.1:9"})
    assert unreachable.returncode == 8 and "MEDIATRANS_BASE_URL" in unreachable.stderr
    assert run(["video", "translate", "missing.mp4", "--to", "es"], env).returncode == 2
    assert run(["video", "translate", "x.mp4"], env).returncode == 2  # --to is required


def test_config_file_is_private_and_flags_and_env_win(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    account = {"account_id": "acc1", "name": "Studio", "rate_limit_per_minute": 60, "rate_limit_burst": 10,
               "quotas": {"video_minutes": 600}, "usage": {"video_minutes": 12}, "period": "2026-11"}  # fmt: skip
    server.route("GET", "/v1/account")(lambda _: Reply(200, account))
    bare = {k: v for k, v in env.items() if k not in ("MEDIATRANS_BASE_URL", "MEDIATRANS_TOKEN")}
    assert run(["account"], bare).returncode == 2  # no address anywhere: a usage error naming the fixes
    configured = run(["configure", "--base-url", server.base_url, "--token", "mt_from_file"], bare)
    assert configured.returncode == 0, configured.stderr
    path = tmp_path / "config" / "mediatrans" / "config.toml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    result = run(["--json", "account"], bare)
    assert result.returncode == 0 and json.loads(result.stdout)["usage"] == {"video_minutes": 12}
    assert server.requests_to("GET", "/v1/account")[-1].headers["authorization"] == "Bearer mt_from_file"
    assert run(["account"], {**bare, "MEDIATRANS_TOKEN": "mt_env"}).returncode == 0
    assert server.requests_to("GET", "/v1/account")[-1].headers["authorization"] == "Bearer mt_env"
    assert run(["--token", "mt_flag", "account"], {**bare, "MEDIATRANS_TOKEN": "mt_env"}).returncode == 0
    assert server.requests_to("GET", "/v1/account")[-1].headers["authorization"] == "Bearer mt_flag"
    assert run(["--profile", "staging", "account"], bare).returncode == 2  # unknown profile


def test_languages_are_cached_on_disk_between_runs(server: LoopbackServer, env: dict[str, str]) -> None:
    listing = {"languages": [{"code": "en", "name": "English", "name_en": "English"}], "total": 1}
    server.route("GET", "/v1/languages")(lambda _: Reply(200, listing, {"ETag": '"v1"'}))
    first = run(["--json", "languages"], env)
    second = run(["--json", "languages"], env)
    assert first.returncode == second.returncode == 0
    assert json.loads(first.stdout) == json.loads(second.stdout) == listing
    assert len(server.requests_to("GET", "/v1/languages")) == 1  # the second run read the 24 h cache
    assert run(["languages", "--source", "en"], env).returncode == 0  # another query is another entry
    assert server.requests_to("GET", "/v1/languages")[-1].query == {"source": ["en"]}


def test_grammar_check_points_at_the_line_and_fixes(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    text = "First line is fine.\nShe go to school.\n"
    issue = {"type": "grammar", "offset": 24, "length": 2, "wrong": "go", "correct": "goes", "severity": "error",
             "message": "Agreement", "rule_id": "SVA"}  # fmt: skip

    @server.route("POST", "/v1/grammar")
    def check(request: Recorded) -> Reply:
        body = json.loads(request.body)
        corrected = body["text"].replace("She go", "She goes") if body.get("auto_correct") else None
        return Reply(200, {"original": body["text"], "corrected": corrected, "issues": [issue], "issues_count": 1,
                           "lang": "en", "quality_score": 80})  # fmt: skip

    source = tmp_path / "essay.txt"
    source.write_text(text)
    shown = run(["grammar", "check", str(source), "--lang", "en"], env)
    assert shown.returncode == 0
    lines = shown.stdout.splitlines()
    assert lines[0].startswith(f"{source}:2:5: grammar [error] Agreement (SVA)")
    assert lines[1] == "    She go to school." and lines[2] == "        ^^"
    assert run(["grammar", "check", str(source), "--strict"], env).returncode == 1
    fixed = run(["grammar", "check", str(source), "--fix", "--in-place"], env)
    assert fixed.returncode == 0 and source.read_text() == "First line is fine.\nShe goes to school.\n"
    piped = run(["--json", "grammar", "check", "-", "--fix"], env, stdin=text)
    assert json.loads(piped.stdout)["corrected"] == "First line is fine.\nShe goes to school.\n"


def test_game_localize_writes_every_language_and_reports_cut_strings(
    server: LoopbackServer, env: dict[str, str], tmp_path: Path
) -> None:
    @server.route("POST", "/v1/game/localization")
    def localize(request: Recorded) -> Reply:
        body = json.loads(request.body)
        out = {lang: "\n".join(f"{lang.upper()} {line}" for line in body["text"].split("\n")) for lang in body["target_langs"]}
        limit, cut = body.get("max_length"), []
        for lang, value in out.items():
            if limit and len(value) > limit:
                out[lang], _ = value[:limit], cut.append(lang)
        return Reply(200, {"original": body["text"], "translations": out, "content_type": body["content_type"],
                           "genre": body.get("genre"), "tone": body.get("tone"), "shortened": cut})  # fmt: skip

    source = tmp_path / "ui.json"
    source.write_text(json.dumps({"menu": {"start": "Start", "quit": "Quit game"}, "hp": 100}))
    args = ["--json", "game", "localize", str(source), "--from", "en", "--to", "es,fr", "--max-length", "8"]
    result = run([*args, "-o", str(tmp_path / "out"), "--genre", "rpg", "--tone", "epic"], env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert sorted(report["files"]) == [str(tmp_path / "out" / lang / "ui.json") for lang in ("es", "fr")]
    spanish = json.loads((tmp_path / "out" / "es" / "ui.json").read_text())
    assert spanish == {"menu": {"start": "ES Start", "quit": "ES Quit "}, "hp": 100}
    assert {(hit["lang"], hit["max_length"]) for hit in report["shortened"]} == {("es", 8), ("fr", 8)}
    bodies = [json.loads(r.body) for r in server.requests_to("POST", "/v1/game/localization")]
    assert all(b["genre"] == "rpg" and b["tone"] == "epic" and b["source_lang"] == "en" for b in bodies)
    plan = run(["--json", "game", "localize", str(source), "--from", "en", "--to", "es,fr", "--dry-run"], env)
    assert json.loads(plan.stdout)["billed_characters"] == len("Start") * 2 + len("Quit game") * 2
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert run(["game", "localize", str(broken), "--from", "en", "--to", "es"], env).returncode == 5
