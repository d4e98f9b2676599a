"""Storage caps over HTTP (docs/limits.md): the group's quota error naming the cap, paged glossary lists."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error
from tests.integration.test_video_http import SPEECH, download, submit, wait_done
from tests.support.media import make_video

pytestmark = pytest.mark.serve


def glossary(name: str, entries: int = 1) -> dict:
    return {
        "name": name,
        "source_lang": "en",
        "target_lang": "es",
        "entries": [{"source": f"term{i}", "target": f"término{i}"} for i in range(entries)],
    }


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_glossary_caps_refuse_with_456_4002_naming_the_cap(client: httpx.Client, accounts: Accounts) -> None:
    _account, token = accounts.create(caps={"glossaries": 3, "glossary_entries": 10})
    auth = bearer(token)
    ids = []
    for i in range(3):
        created = client.post("/v1/glossaries", json=glossary(f"g{i}"), headers=auth)
        assert created.status_code == 201, created.text
        ids.append(created.json()["glossary_id"])
    body = assert_error(client.post("/v1/glossaries", json=glossary("g3"), headers=auth), 456, 4002)
    assert body["message"] == (
        "Glossary cap reached: the account holds 3 glossaries, its cap (glossaries=3). Delete a glossary first."
    )
    grown = client.put(f"/v1/glossaries/{ids[0]}", json={"entries": glossary("x", 11)["entries"]}, headers=auth)
    assert "(glossary_entries=10)" in assert_error(grown, 456, 4002)["message"]

    info = client.get("/v1/account", headers=auth).json()
    assert info["caps"]["glossaries"] == 3 and info["caps"]["pending_tasks"] == 100
    assert info["stored"]["glossaries"] == 3 and info["stored"]["glossary_total_bytes"] > 0

    assert client.delete(f"/v1/glossaries/{ids[1]}", headers=auth).status_code == 200
    assert client.post("/v1/glossaries", json=glossary("g3"), headers=auth).status_code == 201
    assert client.get("/v1/account", headers=auth).json()["stored"]["glossaries"] == 3


def test_glossary_list_pages_with_a_cursor(client: httpx.Client, accounts: Accounts) -> None:
    _account, token = accounts.create()
    auth = bearer(token)
    ids = [client.post("/v1/glossaries", json=glossary(f"g{i}"), headers=auth).json()["glossary_id"] for i in range(5)]
    whole = client.get("/v1/glossaries", headers=auth).json()
    assert [g["glossary_id"] for g in whole["glossaries"]] == ids and whole["total"] == 5 and "next_cursor" not in whole
    seen, cursor, pages = [], None, 0
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = client.get("/v1/glossaries", params=params, headers=auth)
        assert page.status_code == 200, page.text
        body = page.json()
        assert body["total"] == 5 and len(body["glossaries"]) <= 2 and "entries" not in body["glossaries"][0]
        seen += [g["glossary_id"] for g in body["glossaries"]]
        pages += 1
        cursor = body.get("next_cursor")
        if cursor is None:
            break
    assert seen == ids and pages == 3
    assert_error(client.get("/v1/glossaries", params={"cursor": "bm9wZQ"}, headers=auth), 400, 1001)
    assert_error(client.get("/v1/glossaries", params={"limit": 0}, headers=auth), 400, 1001)
    assert_error(client.get("/v1/glossaries", params={"limit": 101}, headers=auth), 400, 1001)


def test_idempotency_and_pending_task_caps_answer_each_groups_quota_error(client: httpx.Client, accounts: Accounts) -> None:
    _account, token = accounts.create(caps={"idempotency_records": 1, "pending_tasks": 0})
    auth = bearer(token)
    first = client.post("/v1/glossaries", json=glossary("a"), headers={**auth, "Idempotency-Key": "k1"})
    assert first.status_code == 201
    replay = client.post("/v1/glossaries", json=glossary("a"), headers={**auth, "Idempotency-Key": "k1"})
    assert replay.status_code == 201 and replay.headers["idempotent-replayed"] == "true"
    second = client.post("/v1/glossaries", json=glossary("b"), headers={**auth, "Idempotency-Key": "k2"})
    assert "(idempotency_records=1)" in assert_error(second, 456, 4002)["message"]

    refused = submit(client, auth, target_lang="es", video_url="https://localhost/v.mp4")
    body = assert_error(refused, 402, "QUOTA_EXCEEDED")
    assert "(pending_tasks=0)" in body["message"]


@pytest.fixture(scope="module")
def talk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("videos") / "talk.mp4", container="mp4", speech_text=SPEECH)


def test_pending_tasks_and_stored_outputs_are_capped(client: httpx.Client, accounts: Accounts, talk: Path) -> None:
    _account, token = accounts.create(caps={"pending_tasks": 1, "output_bytes": 1})
    auth = bearer(token)
    first = submit(client, auth, talk, target_lang="es", source_lang="en")
    assert first.status_code == 200, first.text
    busy = submit(client, auth, talk, target_lang="es", source_lang="en")  # the first is still queued or running
    assert "(pending_tasks=1)" in assert_error(busy, 402, "QUOTA_EXCEEDED")["message"]
    task = wait_done(client, auth, first.json()["task_id"])
    assert task["status"] == "completed", task
    outputs = [v for k, v in task["result"].items() if k.endswith("_url")]
    stored = client.get("/v1/account", headers=auth).json()["stored"]
    downloads = sum(len(download(client, url)) for url in outputs)
    # Every kept file counts: the outputs, and the transcript a revision renders from (docs/video-revisions.md).
    transcript = client.get(f"/v1/video/task/{task['task_id']}/transcript", headers=auth).json()
    kept = stored["output_bytes"] - downloads
    assert stored["pending_tasks"] == 0 and downloads > 0
    assert sum(len(s["source"]) + len(s["translation"]) for s in transcript["segments"]) < kept < 64 * 1024
    full = submit(client, auth, talk, target_lang="es", source_lang="en")  # the outputs now take the cap
    assert "(output_bytes=1)" in assert_error(full, 402, "QUOTA_EXCEEDED")["message"]
