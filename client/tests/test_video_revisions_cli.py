"""``mediatrans video transcript | revise | edit`` as a subprocess against a loopback server, with a scripted editor."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from conftest import CHILD, PARENT, TRANSCRIPT, LoopbackServer, Recorded, Reply, run, serve_revise, task_record

#: A stand-in editor: ``editor.py LOG [SEGMENT TEXT]`` logs the file it was given and what it held, then sets
#: segment SEGMENT's translation to TEXT (with other indentation); without them it leaves the file alone.
EDITOR = """
import json, sys
log, *change, path = sys.argv[1:]
with open(path, encoding="utf-8") as handle:
    rows = json.load(handle)
with open(log, "w", encoding="utf-8") as handle:
    json.dump({"path": path, "rows": rows}, handle)
if change:
    segment, text = change
    next(row for row in rows if row["id"] == segment)["translation"] = text
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(rows, handle, ensure_ascii=False, indent=4)
"""


@pytest.fixture
def env(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The CLI's environment, with its temporary files (the transcript to edit) under ``tmp_path / "tmp"``."""
    (tmp_path / "tmp").mkdir()
    return {**env, "TMPDIR": str(tmp_path / "tmp")}


def editor(tmp_path: Path, *change: str) -> tuple[str, Path]:
    """An ``--editor`` command running :data:`EDITOR`, and the log it writes."""
    script = tmp_path / "editor.py"
    script.write_text(EDITOR, encoding="utf-8")
    log = tmp_path / "editor.log"
    return shlex.join([sys.executable, str(script), str(log), *change]), log


def serve_transcript(server: LoopbackServer) -> None:
    server.route("GET", f"/v1/video/task/{PARENT}/transcript")(lambda r: Reply(200, TRANSCRIPT))


def test_transcript_prints_the_record_or_writes_it(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    serve_transcript(server)
    shown = run(["video", "transcript", PARENT], env)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == TRANSCRIPT  # as the service sent it: null parent, unknown fields, no added keys
    target = tmp_path / "talk.transcript.json"
    written = run(["video", "transcript", PARENT, "-o", str(target)], env)
    assert written.returncode == 0 and written.stdout == "" and "2 segments" in written.stderr
    assert json.loads(target.read_text(encoding="utf-8")) == TRANSCRIPT


def test_transcript_of_an_unfinished_task_exits_5(server: LoopbackServer, env: dict[str, str]) -> None:
    conflict = {"code": "CONFLICT", "message": "The task is not completed.", "request_id": "rq-409"}
    server.route("GET", f"/v1/video/task/{PARENT}/transcript")(lambda r: Reply(409, conflict))
    result = run(["--json", "video", "transcript", PARENT], env)
    assert result.returncode == 5 and result.stdout == ""
    error = json.loads(result.stderr)["error"]
    assert (error["type"], error["code"], error["status"]) == ("ConflictError", "CONFLICT", 409)


def test_revise_reads_edits_and_choices_from_the_file_and_options_win(
    server: LoopbackServer, env: dict[str, str], tmp_path: Path
) -> None:
    seen = serve_revise(server)
    edits = tmp_path / "edits.json"
    document = {
        "segments": [{"id": "s1", "translation": "¡Hola!"}, {"id": "s2", "start": 2.75, "speaker": "Speaker 1"}],
        "output_format": "vtt",
        "enable_dubbing": True,
        "subtitle_size": 30,
    }
    edits.write_text(json.dumps(document), encoding="utf-8")
    result = run(["--json", "video", "revise", PARENT, str(edits), "--no-dub", "--format", "srt", "-f", "subtitle_size=24"], env)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert (record["task_id"], record["parent_task_id"], record["revision"]) == (CHILD, PARENT, 1)
    assert json.loads(seen[0].body) == {
        "segments": [{"id": "s1", "translation": "¡Hola!"}, {"id": "s2", "speaker": "Speaker 1", "start": 2.75}],
        "output_format": "srt",
        "enable_dubbing": False,
        "subtitle_size": 24,
    }
    assert seen[0].headers["idempotency-key"]


def test_revise_a_list_of_edits_waits_and_downloads(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    seen = serve_revise(server)
    result_links = {"subtitle_url": f"{server.base_url}/v1/files/r/talk.es.srt"}
    done = task_record(CHILD, "completed", 100, parent_task_id=PARENT, revision=1, result=result_links)
    server.route("GET", f"/v1/video/task/{CHILD}")(lambda r: Reply(200, done))
    server.route("GET", "/v1/files/r/talk.es.srt")(lambda r: Reply(200, b"1\n00:00:00,000 --> 00:00:02,500\n\xc2\xa1Hola!\n"))
    out = tmp_path / "subs"
    edits = '[{"id": "s1", "translation": "¡Hola!"}]'
    result = run(["--json", "video", "revise", PARENT, "-", "--bilingual", "--out", str(out), "--poll-interval", "1"], env, edits)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["downloaded"] == [str(out / "talk.es.srt")]
    assert json.loads(seen[0].body) == {"segments": [{"id": "s1", "translation": "¡Hola!"}], "bilingual": True}


def test_revise_refuses_a_bad_edits_file_without_a_request(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    serve_revise(server)
    for text in ("{not json", '{"output_format": "srt"}', '[{"translation": "no id"}]', "[]"):
        edits = tmp_path / "edits.json"
        edits.write_text(text, encoding="utf-8")
        result = run(["video", "revise", PARENT, str(edits)], env)
        assert result.returncode == 2 and "EDITS.json" in result.stderr, text
    assert run(["video", "revise", PARENT, str(tmp_path / "missing.json")], env).returncode == 2
    assert server.requests == []


def test_edit_submits_only_the_changed_field(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    serve_transcript(server)
    seen = serve_revise(server)
    command, log = editor(tmp_path, "s2", "¡Hola a todas!")
    result = run(["video", "edit", PARENT, "--editor", command, "--format", "vtt", "-f", "subtitle_size=28"], env)
    assert result.returncode == 0, result.stderr
    assert f"task      {CHILD}" in result.stdout and "1 segment(s) changed" in result.stderr
    assert json.loads(seen[0].body) == {
        "segments": [{"id": "s2", "translation": "¡Hola a todas!"}],
        "output_format": "vtt",
        "subtitle_size": 28,
    }
    opened = json.loads(log.read_text(encoding="utf-8"))
    assert opened["rows"] == [
        {"id": "s1", "start": 0.0, "end": 2.5, "speaker": "Speaker 1", "source": "Hello.", "translation": "Hola."},
        {"id": "s2", "start": 2.5, "end": 6.0, "speaker": "Speaker 2", "source": "Hi everyone.", "translation": "Hola a todos."},
    ]
    assert Path(opened["path"]).parent == tmp_path / "tmp"
    assert not Path(opened["path"]).exists()  # the temporary file is removed once the revision is accepted


def test_edit_uses_visual_then_editor(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    serve_transcript(server)
    seen = serve_revise(server)
    command, _ = editor(tmp_path, "s1", "Buenas.")
    result = run(["--json", "video", "edit", PARENT], {**env, "VISUAL": command, "EDITOR": "false"})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["task_id"] == CHILD
    assert json.loads(seen[0].body) == {"segments": [{"id": "s1", "translation": "Buenas."}]}
    env_only = {k: v for k, v in env.items() if k != "VISUAL"}
    assert run(["video", "edit", PARENT], {**env_only, "EDITOR": command}).returncode == 0
    assert len(seen) == 2


def test_edit_of_an_unchanged_file_sends_nothing(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    serve_transcript(server)
    serve_revise(server)
    command, log = editor(tmp_path)
    result = run(["video", "edit", PARENT, "--editor", command], env)
    assert result.returncode == 0 and "nothing changed" in result.stderr and result.stdout == ""
    assert server.requests_to("POST", f"/v1/video/task/{PARENT}/revise") == []
    assert not Path(json.loads(log.read_text(encoding="utf-8"))["path"]).exists()


def test_edit_refuses_broken_json_and_changed_ids(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    serve_transcript(server)
    serve_revise(server)
    rewrites = {
        "open(sys.argv[1], 'w').write('[{not json')": "not valid JSON",
        "rows = json.load(open(sys.argv[1])); rows[0]['id'] = 's9'; json.dump(rows, open(sys.argv[1], 'w'))": "'s9' is not one",
        "rows = json.load(open(sys.argv[1])); json.dump(rows[1:], open(sys.argv[1], 'w'))": "segments removed: s1",
        "rows = json.load(open(sys.argv[1])); rows[0]['end'] = 'late'; json.dump(rows, open(sys.argv[1], 'w'))": "end must be",
    }
    for body, message in rewrites.items():
        script = tmp_path / "rewrite.py"
        script.write_text(f"import json, sys\n{body}\n", encoding="utf-8")
        result = run(["video", "edit", PARENT, "--editor", shlex.join([sys.executable, str(script)])], env)
        assert result.returncode == 2, (message, result.stderr)
        assert message in result.stderr and "nothing submitted" in result.stderr and "kept in" in result.stderr, result.stderr
    assert len(list((tmp_path / "tmp").glob("mediatrans-transcript-*.json"))) == len(rewrites)  # each kept
    assert server.requests_to("POST", f"/v1/video/task/{PARENT}/revise") == []


def test_edit_stops_when_the_editor_fails(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    serve_transcript(server)
    serve_revise(server)
    result = run(["video", "edit", PARENT, "--editor", "false"], env)
    assert result.returncode == 1 and "editor exited with status 1" in result.stderr
    assert list((tmp_path / "tmp").iterdir()) == []  # nothing was edited: nothing kept
    assert server.requests_to("POST", f"/v1/video/task/{PARENT}/revise") == []


def test_edit_keeps_the_file_when_the_service_refuses(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    serve_transcript(server)
    refusal = {"code": "INVALID_PARAMETER", "message": "Segments s1 and s2 overlap.", "request_id": "rq-400"}
    attempts: list[Recorded] = []

    @server.route("POST", f"/v1/video/task/{PARENT}/revise")
    def refuse(request: Recorded) -> Reply:
        attempts.append(request)
        return Reply(400, refusal)

    command, log = editor(tmp_path, "s1", "Hola otra vez.")
    result = run(["video", "edit", PARENT, "--editor", command], env)
    assert result.returncode == 5 and "overlap" in result.stderr and len(attempts) == 1
    kept = Path(json.loads(log.read_text(encoding="utf-8"))["path"])
    assert kept.exists() and str(kept) in result.stderr
    assert json.loads(kept.read_text(encoding="utf-8"))[0]["translation"] == "Hola otra vez."
    kept.unlink()
