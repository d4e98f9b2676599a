"""Translation memories over HTTP: JSON and file creation, pages, entries, caps, tenancy, bad input."""

from __future__ import annotations

import httpx
import pytest

from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error

pytestmark = pytest.mark.serve

BODY = {
    "name": "quests",
    "source_lang": "en",
    "target_lang": "es",
    "description": "Quest log",
    "entries": [
        {"source": "Open the quest log", "target": "Abre el diario de misiones"},
        {"source": "Quest", "target": "Misión"},
    ],
}

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x"
 creationtool="t" creationtoolversion="1"/><body>
<tu><tuv xml:lang="en-US"><seg>Open the door</seg></tuv><tuv xml:lang="de"><seg>Öffne die Tür</seg></tuv>
<tuv xml:lang="es-ES"><seg>Abre la puerta</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Only German</seg></tuv><tuv xml:lang="de"><seg>Nur Deutsch</seg></tuv></tu>
</body></tmx>"""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def upload(client: httpx.Client, auth: dict[str, str], content: bytes, filename: str, **fields: str) -> httpx.Response:
    form = {"name": "from-file", "source_lang": "en", "target_lang": "es", **fields}
    return client.post("/v1/memories", data=form, files={"file": (filename, content)}, headers=auth)


def test_json_roundtrip_entries_and_delete(client: httpx.Client, auth: dict[str, str]) -> None:
    created = client.post("/v1/memories", json=BODY, headers=auth)
    assert created.status_code == 201, created.text
    record = created.json()
    mid = record["memory_id"]
    assert record["entry_count"] == 2 and record["revision"] == 1 and record["bytes"] > 0
    assert "entries" not in record and "account_id" not in record and "file" not in record
    read = client.get(f"/v1/memories/{mid}", headers=auth).json()
    assert read["entries"] == sorted(BODY["entries"], key=lambda e: e["source"].casefold()) and "next_cursor" not in read

    added = client.post(
        f"/v1/memories/{mid}/entries",
        json={"entries": [{"source": "  QUEST ", "target": "Búsqueda"}, {"source": "Sword", "target": "Espada"}]},
        headers=auth,
    )
    assert added.status_code == 200, added.text
    body = added.json()
    assert (body["added"], body["replaced"], body["unchanged"]) == (1, 1, 0)
    assert body["memory"]["entry_count"] == 3 and body["memory"]["revision"] == 2

    deleted = client.post(f"/v1/memories/{mid}/entries/delete", json={"sources": ["sword", "nothing"]}, headers=auth)
    assert deleted.json()["deleted"] == 1 and deleted.json()["memory"]["entry_count"] == 2

    replaced = client.put(f"/v1/memories/{mid}/entries", json={"entries": [{"source": "Hi", "target": "Hola"}]}, headers=auth)
    assert replaced.status_code == 200 and replaced.json()["entry_count"] == 1 and replaced.json()["revision"] == 4
    assert client.get(f"/v1/memories/{mid}", headers=auth).json()["entries"] == [{"source": "Hi", "target": "Hola"}]

    assert client.delete(f"/v1/memories/{mid}", headers=auth).json() == {"memory_id": mid, "deleted": True}
    assert_error(client.get(f"/v1/memories/{mid}", headers=auth), 404, 2004)
    assert_error(client.post(f"/v1/memories/{mid}/entries", json={"entries": []}, headers=auth), 404, 2004)


def test_create_from_files(client: httpx.Client, auth: dict[str, str]) -> None:
    tmx = upload(client, auth, TMX.encode(), "game.tmx")
    assert tmx.status_code == 201, tmx.text
    assert tmx.json()["entry_count"] == 1 and tmx.json()["file"] == {"format": "tmx", "pairs": 1, "skipped": 1}
    entries = client.get(f"/v1/memories/{tmx.json()['memory_id']}", headers=auth).json()["entries"]
    assert entries == [{"source": "Open the door", "target": "Abre la puerta"}]
    csv = upload(client, auth, b"source,target\nSword,Espada\nShield,Escudo\nsword,Espada larga\n", "t.csv", name="csv")
    assert csv.status_code == 201, csv.text
    assert csv.json()["entry_count"] == 2 and csv.json()["file"] == {"format": "csv", "pairs": 3, "skipped": 0}
    tsv = upload(client, auth, b"Bow\tArco\n", "t.tsv", name="tsv", target_lang="es", description="bows")
    assert tsv.status_code == 201 and tsv.json()["description"] == "bows" and tsv.json()["file"]["format"] == "tsv"


@pytest.mark.parametrize(
    ("content", "filename", "message"),
    [
        (b"<tmx><body><tu>", "x.tmx", "file cannot be read: the file is not well-formed XML (line 1)."),
        (b"Sword,Espada\nA,B,C\n", "x.csv", "file cannot be read: line 2: expected 2 columns (source, target), found 3."),
        (
            TMX.replace('xml:lang="es-ES"', 'xml:lang="it"').encode(),
            "x.tmx",
            "file cannot be read: no unit of the file has both en and es text (2 units without).",
        ),
    ],
)
def test_bad_files_are_400_with_one_line(
    client: httpx.Client, auth: dict[str, str], content: bytes, filename: str, message: str
) -> None:
    body = assert_error(upload(client, auth, content, filename), 400, 1001)
    assert body["message"] == message


def test_list_pages_and_entry_pages(client: httpx.Client, accounts: Accounts) -> None:
    _account, token = accounts.create()
    auth = bearer(token)
    ids = [client.post("/v1/memories", json={**BODY, "name": f"m{i}"}, headers=auth).json()["memory_id"] for i in range(3)]
    first = client.get("/v1/memories", params={"limit": 2}, headers=auth).json()
    assert (
        first["total"] == 3 and [m["memory_id"] for m in first["memories"]] == ids[:2] and "entries" not in first["memories"][0]
    )
    rest = client.get("/v1/memories", params={"limit": 2, "cursor": first["next_cursor"]}, headers=auth).json()
    assert [m["memory_id"] for m in rest["memories"]] == ids[2:] and "next_cursor" not in rest
    entries = [{"source": f"Line {i:02d}", "target": f"Línea {i:02d}"} for i in range(7)]
    client.put(f"/v1/memories/{ids[0]}/entries", json={"entries": entries}, headers=auth)
    seen, cursor = [], None
    while True:
        page = client.get(f"/v1/memories/{ids[0]}", params={"limit": 3, **({"cursor": cursor} if cursor else {})}, headers=auth)
        assert page.status_code == 200, page.text
        assert page.json()["entry_count"] == 7 and len(page.json()["entries"]) <= 3
        seen += page.json()["entries"]
        cursor = page.json().get("next_cursor")
        if cursor is None:
            break
    assert seen == entries
    assert_error(client.get("/v1/memories", params={"cursor": "bm9wZQ"}, headers=auth), 400, 1001)
    assert_error(client.get(f"/v1/memories/{ids[0]}", params={"limit": 0}, headers=auth), 400, 1001)
    assert_error(client.get(f"/v1/memories/{ids[0]}", params={"cursor": "Tk9QRQ"}, headers=auth), 400, 1001)


def test_another_accounts_memory_is_not_found(client: httpx.Client, accounts: Accounts) -> None:
    _a, token_a = accounts.create()
    _b, token_b = accounts.create()
    mid = client.post("/v1/memories", json=BODY, headers=bearer(token_a)).json()["memory_id"]
    other = bearer(token_b)
    assert_error(client.get(f"/v1/memories/{mid}", headers=other), 404, 2004)
    assert_error(client.post(f"/v1/memories/{mid}/entries", json={"entries": []}, headers=other), 404, 2004)
    assert_error(client.put(f"/v1/memories/{mid}/entries", json={"entries": []}, headers=other), 404, 2004)
    assert_error(client.post(f"/v1/memories/{mid}/entries/delete", json={"sources": ["Quest"]}, headers=other), 404, 2004)
    assert_error(client.delete(f"/v1/memories/{mid}", headers=other), 404, 2004)
    assert client.get("/v1/memories", headers=other).json()["total"] == 0
    assert client.post("/v1/memories", json=BODY, headers=other).status_code == 201  # names are per account
    assert client.get(f"/v1/memories/{mid}", headers=bearer(token_a)).json()["entry_count"] == 2
    _c, scoped = accounts.create(scopes=["video"])
    assert_error(client.get("/v1/memories", headers=bearer(scoped)), 403, 2003)


def test_caps_refuse_with_456_4002_naming_the_cap(client: httpx.Client, accounts: Accounts) -> None:
    _account, token = accounts.create(caps={"memories": 2, "memory_entries": 3})
    auth = bearer(token)
    mid = client.post("/v1/memories", json=BODY, headers=auth).json()["memory_id"]
    assert client.post("/v1/memories", json={**BODY, "name": "two"}, headers=auth).status_code == 201
    body = assert_error(client.post("/v1/memories", json={**BODY, "name": "three"}, headers=auth), 456, 4002)
    assert body["message"] == (
        "Translation memory cap reached: the account holds 2 translation memories, its cap (memories=2). "
        "Delete a translation memory first."
    )
    more = {"entries": [{"source": f"s{i}", "target": f"t{i}"} for i in range(2)]}
    full = client.post(f"/v1/memories/{mid}/entries", json=more, headers=auth)
    assert "(memory_entries=3)" in assert_error(full, 456, 4002)["message"]
    assert client.get(f"/v1/memories/{mid}", headers=auth).json()["entry_count"] == 2  # nothing written
    info = client.get("/v1/account", headers=auth).json()
    assert info["caps"]["memories"] == 2 and info["caps"]["memory_total_bytes"] == 64 << 20


@pytest.mark.parametrize(
    ("patch", "status", "code"),
    [
        ({"source_lang": "auto"}, 400, 1001),
        ({"source_lang": "xx"}, 400, 1002),
        ({"target_lang": "ja"}, 400, 1002),  # pair not served by the CPU profile
        ({"name": ""}, 400, 1001),
        ({"name": "a\nb"}, 400, 1001),
        ({"entries": [{"source": "  ", "target": "b"}]}, 400, 1001),
        ({"entries": [{"source": "a", "target": "b\x07"}]}, 400, 1001),
        ({"entries": [{"source": "a" * 2001, "target": "b"}]}, 400, 1001),
        ({"entries": [{"source": "a"}]}, 400, 1001),
        ({"unknown_field": 1}, 400, 1001),
    ],
)
def test_validation(client: httpx.Client, auth: dict[str, str], patch: dict, status: int, code: int) -> None:
    assert_error(client.post("/v1/memories", json={**BODY, **patch}, headers=auth), status, code)


def test_conflicts_missing_and_bad_bodies(client: httpx.Client, auth: dict[str, str]) -> None:
    assert client.post("/v1/memories", json=BODY, headers=auth).status_code == 201
    assert_error(client.post("/v1/memories", json=BODY, headers=auth), 409, 1003)
    assert_error(client.get("/v1/memories/mem_missing", headers=auth), 404, 2004)
    assert_error(client.post("/v1/memories", content=b"{x", headers={**auth, "content-type": "application/json"}), 400, 1001)
    assert_error(client.post("/v1/memories", content=b"x", headers={**auth, "content-type": "text/plain"}), 400, 1001)
    no_file = client.post("/v1/memories", data={"name": "n", "source_lang": "en", "target_lang": "es"}, headers=auth)
    assert "file" in assert_error(no_file, 400, 1001)["message"]
    assert_error(client.post("/v1/memories", json=BODY), 401, 2001)
    big = {**BODY, "name": "big", "entries": [{"source": f"s{i}", "target": "x" * 1900} for i in range(600)]}
    assert client.post("/v1/memories", json=big, headers=auth).status_code == 201  # over the usual 1 MiB
    huge = b'{"name": "huge", "entries": "' + b"x" * (17 << 20) + b'"}'  # over body_limits.memory_upload_bytes
    assert_error(client.post("/v1/memories", content=huge, headers={**auth, "content-type": "application/json"}), 413, 3001)


def test_idempotent_create(client: httpx.Client, auth: dict[str, str]) -> None:
    key = {**auth, "Idempotency-Key": "memory-1"}
    first = upload(client, key, b"Sword,Espada\n", "a.csv")
    again = upload(client, key, b"Sword,Espada\n", "a.csv")
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert_error(upload(client, key, b"Sword,Espadon\n", "a.csv"), 409, 1005)
