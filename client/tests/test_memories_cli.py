"""``mediatrans memories …`` and the steering options (``--context``, ``--instruction``, ``--glossary``, ``--memory``)
as a subprocess against a loopback server: the requests sent, what is printed, usage errors before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import (
    PARENT,
    LoopbackServer,
    Recorded,
    Reply,
    form_parts,
    form_values,
    run,
    serve_add_language,
    serve_form,
    serve_revise,
)

MID = "m" * 32
RECORD = {"memory_id": MID, "name": "game-ui", "source_lang": "en", "target_lang": "es", "entry_count": 2, "revision": 1}
PAIRS = [
    {"source": "quest log", "target": "diario de misiones"},
    {"source": "Press [b]Start[/b]", "target": "Pulsa [b]Inicio[/b]"},
]


def serve(server: LoopbackServer, method: str, path: str, body: Any, status: int = 200) -> list[Recorded]:
    seen: list[Recorded] = []

    def handler(request: Recorded) -> Reply:
        seen.append(request)
        return Reply(status, body)

    server.route(method, path)(handler)
    return seen


def test_create_from_pairs_and_from_a_file(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    seen = serve(server, "POST", "/v1/memories", RECORD, 201)
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("source\ttarget\nquest log\tdiario de misiones\n\nPress [b]Start[/b]\tPulsa [b]Inicio[/b]\n", "utf-8")
    created = run(["--json", "memories", "create", "game-ui", "--from", "en", "--to", "es", "--pairs", str(pairs)], env)
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)["memory_id"] == MID
    assert json.loads(seen[0].body) == {"name": "game-ui", "source_lang": "en", "target_lang": "es", "entries": PAIRS}
    tmx = tmp_path / "ui.tmx"
    tmx.write_bytes(b"<tmx version='1.4'><body/></tmx>")
    uploaded = run(
        ["memories", "create", "game-ui", "--from", "en", "--to", "es", "--file", str(tmx), "--description", "UI"], env
    )
    assert uploaded.returncode == 0, uploaded.stderr
    assert MID in uploaded.stdout and "game-ui" in uploaded.stdout
    assert form_values(seen[1]) == {"name": ["game-ui"], "source_lang": ["en"], "target_lang": ["es"], "description": ["UI"]}
    assert form_parts(seen[1])["file"][0] == "ui.tmx"


def test_create_refuses_a_bad_pairs_file_or_both_sources(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    seen = serve(server, "POST", "/v1/memories", RECORD, 201)
    bad = tmp_path / "bad.tsv"
    bad.write_text("quest log\tdiario\nno target here\n", encoding="utf-8")
    refused = run(["memories", "create", "x", "--from", "en", "--to", "es", "--pairs", str(bad)], env)
    assert refused.returncode == 2 and "line 2" in refused.stderr
    both = run(["memories", "create", "x", "--from", "en", "--to", "es", "--pairs", str(bad), "--file", str(bad)], env)
    assert both.returncode == 2 and "not both" in both.stderr
    assert seen == []


def test_list_follows_every_page(server: LoopbackServer, env: dict[str, str]) -> None:
    pages = {
        None: {"memories": [RECORD], "total": 2, "next_cursor": "p2"},
        "p2": {"memories": [{**RECORD, "memory_id": "n" * 32, "name": "story"}], "total": 2},
    }
    server.route("GET", "/v1/memories")(lambda r: Reply(200, pages[r.query.get("cursor", [None])[0]]))
    listed = run(["--json", "memories", "list"], env)
    assert listed.returncode == 0, listed.stderr
    assert [m["name"] for m in json.loads(listed.stdout)["memories"]] == ["game-ui", "story"]
    table = run(["memories", "list"], env)
    assert "game-ui" in table.stdout and "story" in table.stdout and "2 memories" in table.stderr


def test_show_one_page_or_every_entry(server: LoopbackServer, env: dict[str, str]) -> None:
    pages = {None: {**RECORD, "entries": PAIRS[:1], "next_cursor": "p2"}, "p2": {**RECORD, "entries": PAIRS[1:]}}
    server.route("GET", f"/v1/memories/{MID}")(lambda r: Reply(200, pages[r.query.get("cursor", [None])[0]]))
    first = run(["memories", "show", MID], env)
    assert first.returncode == 0, first.stderr
    assert "diario de misiones" in first.stdout and "Pulsa" not in first.stdout and "--all" in first.stderr
    every = run(["--json", "memories", "show", MID, "--all"], env)
    assert every.returncode == 0, every.stderr
    record = json.loads(every.stdout)
    assert record["entries"] == PAIRS and "next_cursor" not in record
    table = run(["memories", "show", MID, "--all"], env)
    assert "Pulsa [b]Inicio[/b]" in table.stdout  # entries are printed as written, not as markup


def test_add_remove_and_delete(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    added = serve(server, "POST", f"/v1/memories/{MID}/entries", {"added": 1, "replaced": 1, **RECORD})
    replaced = serve(server, "PUT", f"/v1/memories/{MID}/entries", {"added": 2, "replaced": 0, **RECORD})
    removed = serve(server, "POST", f"/v1/memories/{MID}/entries/delete", {"deleted": 2, **RECORD})
    deleted = serve(server, "DELETE", f"/v1/memories/{MID}", {"memory_id": MID, "deleted": True})
    pairs = ["--source", "quest log", "--target", "diario de misiones", "--source", "inventory", "--target", "inventario"]
    result = run(["memories", "add", MID, *pairs], env)
    assert result.returncode == 0, result.stderr
    assert "added 1, replaced 1" in result.stdout
    assert json.loads(added[0].body) == {"entries": [PAIRS[0], {"source": "inventory", "target": "inventario"}]}
    sheet = tmp_path / "pairs.csv"
    sheet.write_text('source,target\nquest log,diario de misiones\n"Press [b]Start[/b]","Pulsa [b]Inicio[/b]"\n', "utf-8")
    assert run(["memories", "add", MID, "--file", str(sheet), "--replace-all"], env).returncode == 0
    assert json.loads(replaced[0].body) == {"entries": PAIRS}
    gone = run(["--json", "memories", "remove", MID, "--source", "quest log", "--source", "inventory"], env)
    assert gone.returncode == 0 and json.loads(gone.stdout)["deleted"] == 2
    assert json.loads(removed[0].body) == {"sources": ["quest log", "inventory"]}
    assert run(["memories", "delete", MID, "-y"], env).stdout.strip() == f"deleted {MID}"
    assert len(deleted) == 1
    assert run(["memories", "add", MID, "--source", "a"], env).returncode == 2  # a source without its target
    assert len(added) == 1


def test_video_translate_sends_the_steering_options(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    seen = serve_form(server)
    video = tmp_path / "talk.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    brief = tmp_path / "brief.txt"
    brief.write_text("Fantasy RPG trailer for teenagers.", encoding="utf-8")
    steer = ["--context", f"@{brief}", "--instruction", "Use informal tú", "--instruction", "Keep NOVA in English"]
    args = [*steer, "--glossary", "g-1", "--glossary", "g-2", "--memory", MID]
    result = run(["--json", "video", "translate", str(video), "--to", "es", *args], env)
    assert result.returncode == 0, result.stderr
    sent = form_values(seen[0])
    assert sent["context"] == ["Fantasy RPG trailer for teenagers."] and sent["memory_id"] == [MID]
    assert sent["instructions"] == ["Use informal tú", "Keep NOVA in English"] and sent["glossary_ids"] == ["g-1,g-2"]
    assert "glossary_id" not in sent
    single = run(["video", "translate", str(video), "--to", "es", "--glossary", "g-1"], env)  # one glossary: as before
    assert single.returncode == 0, single.stderr
    assert form_values(seen[1]) == {
        "target_lang": ["es"],
        "source_lang": ["auto"],
        "output_format": ["srt"],
        "glossary_id": ["g-1"],
    }


def test_bounds_are_checked_before_anything_is_sent(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    seen = serve_form(server, "/v1/subtitles/translate")
    subtitles = tmp_path / "talk.srt"
    subtitles.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    many = [arg for n in range(11) for arg in ("--instruction", f"rule {n}")]
    too_many = run(["subtitles", "translate", str(subtitles), "--to", "es", *many], env)
    assert too_many.returncode == 2 and "at most 10 instructions" in too_many.stderr
    glossaries = [arg for n in range(6) for arg in ("--glossary", f"g-{n}")]
    assert run(["subtitles", "translate", str(subtitles), "--to", "es", *glossaries], env).returncode == 2
    assert seen == []
    ok = run(["subtitles", "translate", str(subtitles), "--to", "es", "--memory", MID, "--instruction", "Use tú"], env)
    assert ok.returncode == 0, ok.stderr
    assert form_values(seen[0])["memory_id"] == [MID] and form_values(seen[0])["instructions"] == ["Use tú"]


def test_add_language_and_revise(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    added = serve_add_language(server)
    result = run(["--json", "video", "add-language", PARENT, "--to", "de", "--context", "Docs", "--memory", MID], env)
    assert result.returncode == 0, result.stderr
    assert json.loads(added[0].body) == {"target_lang": "de", "context": "Docs", "memory_id": MID}
    revised = serve_revise(server)
    edits = tmp_path / "edits.json"
    edits.write_text(json.dumps([{"id": "s1", "translation": "Hola."}]), encoding="utf-8")
    result = run(["--json", "video", "revise", PARENT, str(edits), "--memory", MID], env)
    assert result.returncode == 0, result.stderr
    assert json.loads(revised[0].body) == {"segments": [{"id": "s1", "translation": "Hola."}], "memory_id": MID}


def test_game_localize_sends_them_and_reports_the_memory(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    def handler(request: Recorded) -> Reply:
        body = json.loads(request.body)
        lines = body["text"].split("\n")
        translations = {lang: "\n".join(f"{lang}:{line}" for line in lines) for lang in body["target_langs"]}
        from_memory = {lang: [i for i, line in enumerate(lines) if line == "Quest log"] for lang in body["target_langs"]}
        return Reply(200, {"original": body["text"], "translations": translations, "from_memory": from_memory})

    server.route("POST", "/v1/game/localization")(handler)
    sheet = tmp_path / "ui.csv"
    sheet.write_text("key,en\nlog,Quest log\nplay,Play\n", encoding="utf-8")
    args = ["--context", "RPG", "--instruction", "Use tú", "--glossary", "g-1", "--glossary", "g-2", "--memory", MID]
    result = run(
        ["--json", "game", "localize", str(sheet), "--from", "en", "--to", "es", "-o", str(tmp_path / "out"), *args], env
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["from_memory"] == {"es": 1}
    body = json.loads(server.requests_to("POST", "/v1/game/localization")[0].body)
    assert {k: body[k] for k in ("context", "instructions", "glossary_ids", "memory_id")} == {
        "context": "RPG",
        "instructions": ["Use tú"],
        "glossary_ids": ["g-1", "g-2"],
        "memory_id": MID,
    }
    assert "glossary_id" not in body
