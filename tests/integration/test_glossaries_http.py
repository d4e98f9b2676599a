"""Glossary CRUD over HTTP: validation, tenancy, conflicts, idempotency, body cap."""

from __future__ import annotations

import httpx
import pytest

from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error

pytestmark = pytest.mark.serve

BODY = {
    "name": "ui-terms",
    "source_lang": "en",
    "target_lang": "es",
    "entries": [{"source": "Health Points", "target": "Puntos de Vida"}, {"source": "Quest", "target": "Misión"}],
}


def test_crud_roundtrip(client: httpx.Client, auth: dict[str, str]) -> None:
    created = client.post("/v1/glossaries", json=BODY, headers=auth)
    assert created.status_code == 201, created.text
    record = created.json()
    gid = record["glossary_id"]
    assert record["entry_count"] == 2 and record["case_sensitive"] is False
    assert client.get(f"/v1/glossaries/{gid}", headers=auth).json()["entries"] == BODY["entries"]
    listing = client.get("/v1/glossaries", headers=auth).json()
    assert listing["total"] == 1 and listing["glossaries"][0]["glossary_id"] == gid and "entries" not in listing["glossaries"][0]
    updated = client.put(
        f"/v1/glossaries/{gid}", json={"name": "renamed", "entries": [{"source": "HP", "target": "PV"}]}, headers=auth
    )
    assert updated.status_code == 200, updated.text
    assert updated.json()["name"] == "renamed" and updated.json()["entry_count"] == 1
    assert client.post("/v1/glossaries", json=BODY, headers=auth).status_code == 201  # old name free again
    deleted = client.delete(f"/v1/glossaries/{gid}", headers=auth)
    assert deleted.json() == {"glossary_id": gid, "deleted": True}
    assert_error(client.get(f"/v1/glossaries/{gid}", headers=auth), 404, 2004)


def test_duplicate_name_conflicts(client: httpx.Client, auth: dict[str, str]) -> None:
    assert client.post("/v1/glossaries", json=BODY, headers=auth).status_code == 201
    assert_error(client.post("/v1/glossaries", json=BODY, headers=auth), 409, 1003)


def test_other_accounts_glossary_is_forbidden(client: httpx.Client, accounts: Accounts) -> None:
    _a, token_a = accounts.create()
    _b, token_b = accounts.create()
    gid = client.post("/v1/glossaries", json=BODY, headers={"Authorization": f"Bearer {token_a}"}).json()["glossary_id"]
    other = {"Authorization": f"Bearer {token_b}"}
    assert_error(client.get(f"/v1/glossaries/{gid}", headers=other), 403, 2003)
    assert_error(client.put(f"/v1/glossaries/{gid}", json={"name": "x"}, headers=other), 403, 2003)
    assert_error(client.delete(f"/v1/glossaries/{gid}", headers=other), 403, 2003)
    assert client.get("/v1/glossaries", headers=other).json()["total"] == 0


@pytest.mark.parametrize(
    ("patch", "status", "code"),
    [
        ({"source_lang": "auto"}, 400, 1001),
        ({"source_lang": "xx"}, 400, 1002),
        ({"target_lang": "ja"}, 400, 1002),  # pair not served by the CPU profile
        ({"name": ""}, 400, 1001),
        ({"name": "n" * 65}, 400, 1001),
        ({"entries": [{"source": "a", "target": "b"}, {"source": "A", "target": "c"}]}, 400, 1001),
        ({"entries": [{"source": "  ", "target": "b"}]}, 400, 1001),
        ({"unknown_field": 1}, 400, 1001),
    ],
)
def test_validation(client: httpx.Client, auth: dict[str, str], patch: dict, status: int, code: int) -> None:
    assert_error(client.post("/v1/glossaries", json={**BODY, **patch}, headers=auth), status, code)


def test_missing_and_bad_bodies(client: httpx.Client, auth: dict[str, str]) -> None:
    assert_error(client.get("/v1/glossaries/gl_missing", headers=auth), 404, 2004)
    assert_error(
        client.post("/v1/glossaries", content=b"{not json", headers={**auth, "content-type": "application/json"}), 400, 1001
    )
    assert_error(client.post("/v1/glossaries", content=b"name=x", headers={**auth, "content-type": "text/plain"}), 400, 1001)
    assert_error(client.post("/v1/glossaries", json=[1, 2], headers=auth), 400, 1001)
    assert_error(client.post("/v1/glossaries", json=BODY), 401, 2001)


def test_body_cap(client: httpx.Client, auth: dict[str, str]) -> None:
    huge = {**BODY, "description": "x" * (2 << 20)}
    assert_error(client.post("/v1/glossaries", json=huge, headers=auth), 413, 3001)

    def stream() -> object:
        for _ in range(64):
            yield b" " * (64 << 10)

    assert_error(client.post("/v1/glossaries", content=stream(), headers={**auth, "content-type": "application/json"}), 413, 3001)


def test_idempotent_create(client: httpx.Client, auth: dict[str, str]) -> None:
    key = {**auth, "Idempotency-Key": "create-1"}
    first = client.post("/v1/glossaries", json=BODY, headers=key)
    again = client.post("/v1/glossaries", json=BODY, headers=key)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert client.get("/v1/glossaries", headers=auth).json()["total"] == 1
    assert_error(client.post("/v1/glossaries", json={**BODY, "name": "other"}, headers=key), 409, 1005)


def test_out_of_scope_token_is_forbidden(client: httpx.Client, accounts: Accounts) -> None:
    _a, token = accounts.create(scopes=["video"])
    headers = {"Authorization": f"Bearer {token}"}
    assert_error(client.get("/v1/glossaries", headers=headers), 403, 2003)
    assert_error(client.post("/v1/game/localization", json={}, headers=headers), 403, 2003)
