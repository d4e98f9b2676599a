"""``client.memories``: the requests of ``/v1/memories`` (JSON or a file), paging, the answers parsed, the async mirror."""

from __future__ import annotations

import asyncio
import inspect
import io
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import LoopbackServer, Recorded, Reply, form_fields, form_parts
from mediatrans_client import AsyncClient, Client, Memory, MemoryEntriesResult, MemoryEntry, NotFoundError
from mediatrans_client._memory_resources import AsyncMemories, Memories

MID = "m" * 32
RECORD = {
    "memory_id": MID,
    "name": "game-ui",
    "description": "RPG menus",
    "source_lang": "en",
    "target_lang": "es",
    "entry_count": 2,
    "revision": 1,
    "created_at": "2026-01-01T00:00:00Z",
    "updated_at": "2026-01-01T00:00:00Z",
}
PAIRS = [{"source": "quest log", "target": "diario de misiones"}, {"source": "Open the {0} door", "target": "Abre la puerta {0}"}]
TMX = b'<?xml version="1.0"?><tmx version="1.4"><header srclang="en"/><body></body></tmx>'


def serve_create(server: LoopbackServer) -> list[Recorded]:
    seen: list[Recorded] = []

    def handler(request: Recorded) -> Reply:
        seen.append(request)
        return Reply(201, RECORD)

    server.route("POST", "/v1/memories")(handler)
    return seen


def serve_pages(server: LoopbackServer, path: str, pages: list[dict[str, Any]]) -> None:
    """``GET path``: page ``n`` for cursor ``c<n>`` (the first without a cursor)."""

    def handler(request: Recorded) -> Reply:
        cursor = request.query.get("cursor", ["c0"])[0]
        return Reply(200, pages[int(cursor[1:])])

    server.route("GET", path)(handler)


def test_create_from_pairs_posts_json_with_a_key(server: LoopbackServer, client: Client) -> None:
    seen = serve_create(server)
    memory = client.memories.create("game-ui", "en", "es", entries=[("quest log", "diario de misiones"), PAIRS[1]])
    assert isinstance(memory, Memory) and memory.memory_id == MID and memory.entry_count == 2 and memory.revision == 1
    assert json.loads(seen[0].body) == {"name": "game-ui", "source_lang": "en", "target_lang": "es", "entries": PAIRS}
    assert seen[0].headers["content-type"] == "application/json" and seen[0].headers["idempotency-key"]


def test_create_takes_records_a_mapping_and_a_description(server: LoopbackServer, client: Client) -> None:
    seen = serve_create(server)
    client.memories.create(
        "a", "en", "es", entries=[MemoryEntry(source="quest log", target="diario de misiones")], description="d"
    )
    client.memories.create("b", "en", "es", entries={"quest log": "diario de misiones"})
    client.memories.create("c", "en", "es")
    bodies = [json.loads(request.body) for request in seen]
    assert bodies[0]["entries"] == bodies[1]["entries"] == PAIRS[:1] and bodies[0]["description"] == "d"
    assert "description" not in bodies[1] and bodies[2]["entries"] == []


def test_create_from_a_file_posts_a_form(server: LoopbackServer, client: Client, tmp_path: Path) -> None:
    seen = serve_create(server)
    path = tmp_path / "ui.tmx"
    path.write_bytes(TMX)
    client.memories.create("game-ui", "en", "es", file=path, description="RPG menus")
    client.memories.create("game-ui", "en", "es", file=TMX)
    client.memories.create("game-ui", "en", "es", file=io.BytesIO(b"source\ttarget\nquest log\tdiario\n"))
    assert form_fields(seen[0]) == {"name": "game-ui", "source_lang": "en", "target_lang": "es", "description": "RPG menus"}
    assert form_parts(seen[0])["file"] == ("ui.tmx", TMX)
    assert form_parts(seen[1])["file"] == ("memory", TMX)  # bytes: the service tells the format from the content
    assert form_parts(seen[2])["file"][1].startswith(b"source\t")
    assert all(request.headers["idempotency-key"] for request in seen)


def test_entries_and_a_file_together_or_a_bad_pair_are_refused_before_sending(
    server: LoopbackServer, client: Client, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="not both"):
        client.memories.create("x", "en", "es", entries=PAIRS, file=TMX)
    with pytest.raises(ValueError, match="entry 2"):
        client.memories.add_entries(MID, [("a", "b"), ("only a source",)])
    with pytest.raises(ValueError, match="entry 1"):
        client.memories.add_entries(MID, [{"source": "a"}])
    with pytest.raises(FileNotFoundError):
        client.memories.create("x", "en", "es", file=tmp_path / "missing.tmx")
    assert server.requests == []


def test_list_and_every_page(server: LoopbackServer, client: Client) -> None:
    summary = {k: v for k, v in RECORD.items() if k != "description"}
    pages = [
        {"memories": [summary], "total": 2, "next_cursor": "c1"},
        {"memories": [{**summary, "memory_id": "n" * 32, "name": "story"}], "total": 2},
    ]
    serve_pages(server, "/v1/memories", pages)
    page = client.memories.list(limit=1)
    assert page.total == 2 and page.next_cursor == "c1" and page.memories[0].name == "game-ui"
    assert server.requests[-1].query == {"limit": ["1"]}
    assert [m.name for m in client.memories.iter_all()] == ["game-ui", "story"]
    assert server.requests[-1].query == {"limit": ["100"], "cursor": ["c1"]}


def test_get_a_page_of_entries_and_every_entry(server: LoopbackServer, client: Client) -> None:
    pages = [{**RECORD, "entries": PAIRS[:1], "next_cursor": "c1"}, {**RECORD, "entries": PAIRS[1:]}]
    serve_pages(server, f"/v1/memories/{MID}", pages)
    memory = client.memories.get(MID, limit=1)
    assert memory.entries == [MemoryEntry(**PAIRS[0])] and memory.next_cursor == "c1"
    assert [entry.target for entry in client.memories.iter_entries(MID)] == ["diario de misiones", "Abre la puerta {0}"]


def test_add_replace_and_delete_entries(server: LoopbackServer, client: Client) -> None:
    replies = {
        ("POST", f"/v1/memories/{MID}/entries"): {"added": 1, "replaced": 1, "memory": {**RECORD, "entry_count": 3}},
        ("PUT", f"/v1/memories/{MID}/entries"): {"added": 2, "replaced": 0, **RECORD},  # the record beside the counts
        ("POST", f"/v1/memories/{MID}/entries/delete"): {"deleted": 1, **RECORD, "entry_count": 1},
        ("DELETE", f"/v1/memories/{MID}"): {"memory_id": MID, "deleted": True},
    }
    for (method, path), body in replies.items():
        server.route(method, path)(lambda r, body=body: Reply(200, body))
    added = client.memories.add_entries(MID, [("quest log", "registro de misiones"), ("inventory", "inventario")])
    assert isinstance(added, MemoryEntriesResult) and (added.added, added.replaced) == (1, 1)
    assert added.memory is not None and added.memory.entry_count == 3
    replaced = client.memories.replace_entries(MID, PAIRS)
    assert replaced.added == 2 and replaced.memory is not None and replaced.memory.memory_id == MID
    deleted = client.memories.delete_entries(MID, ["quest log"])
    assert deleted.deleted == 1 and deleted.memory is not None and deleted.memory.entry_count == 1
    assert client.memories.delete(MID) is True
    sent = [(r.method, r.path, json.loads(r.body) if r.body else None) for r in server.requests]
    assert sent == [
        ("POST", f"/v1/memories/{MID}/entries", {"entries": [
            {"source": "quest log", "target": "registro de misiones"}, {"source": "inventory", "target": "inventario"}]}),
        ("PUT", f"/v1/memories/{MID}/entries", {"entries": PAIRS}),
        ("POST", f"/v1/memories/{MID}/entries/delete", {"sources": ["quest log"]}),
        ("DELETE", f"/v1/memories/{MID}", None),
    ]  # fmt: skip


def test_a_missing_memory_raises_not_found(server: LoopbackServer, client: Client) -> None:
    with pytest.raises(NotFoundError):
        client.memories.get(MID)


def test_the_async_client_does_the_same(server: LoopbackServer) -> None:
    seen = serve_create(server)
    serve_pages(server, "/v1/memories", [{"memories": [RECORD], "total": 2, "next_cursor": "c1"}, {"memories": [], "total": 2}])
    serve_pages(
        server, f"/v1/memories/{MID}", [{**RECORD, "entries": PAIRS[:1], "next_cursor": "c1"}, {**RECORD, "entries": PAIRS[1:]}]
    )
    server.route("POST", f"/v1/memories/{MID}/entries")(lambda r: Reply(200, {"added": 1, "replaced": 0, **RECORD}))
    server.route("DELETE", f"/v1/memories/{MID}")(lambda r: Reply(200, {"memory_id": MID, "deleted": True}))

    async def go() -> None:
        async with AsyncClient(server.base_url, "tok") as client:
            assert (await client.memories.create("game-ui", "en", "es", entries=PAIRS)).memory_id == MID
            assert [m.memory_id async for m in client.memories.iter_all()] == [MID]
            assert len([e async for e in client.memories.iter_entries(MID)]) == 2
            assert (await client.memories.add_entries(MID, {"quest log": "diario"})).added == 1
            assert await client.memories.delete(MID) is True

    asyncio.run(go())
    assert json.loads(seen[0].body)["entries"] == PAIRS


def test_sync_and_async_take_the_same_arguments() -> None:
    for name, method in inspect.getmembers(Memories, inspect.isfunction):
        if not name.startswith("_"):
            assert list(inspect.signature(method).parameters) == list(inspect.signature(getattr(AsyncMemories, name)).parameters)
