"""Steering over HTTP (docs/steering.md): a memory changes later translations, a revision teaches it, context
and instructions are bounded, several glossaries apply per target and disagreeing ones are refused."""

from __future__ import annotations

import httpx
import pytest
import srt

from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error
from tests.integration.test_revisions_http import wait_revision
from tests.integration.test_video_http import download, wait_done

pytestmark = pytest.mark.serve

GAME = "/v1/game/localization"
SRT = """1
00:00:01,000 --> 00:00:03,000
Open the quest log.

2
00:00:03,500 --> 00:00:06,000
The blacksmith sells swords.
"""


@pytest.fixture(scope="module")
def owner(serve_redis_url: str) -> dict[str, str]:
    _account, token = Accounts(serve_redis_url).create()
    return {"Authorization": f"Bearer {token}"}


def memory(client: httpx.Client, headers: dict[str, str], pairs: dict[str, str], target: str = "es", name: str = "m") -> str:
    entries = [{"source": s, "target": t} for s, t in pairs.items()]
    response = client.post(
        "/v1/memories", json={"name": name, "source_lang": "en", "target_lang": target, "entries": entries}, headers=headers
    )
    assert response.status_code in (200, 201), response.text
    return str(response.json()["memory_id"])


def glossary(client: httpx.Client, headers: dict[str, str], name: str, target: str, entries: dict[str, str]) -> str:
    body = {
        "name": name,
        "source_lang": "en",
        "target_lang": target,
        "entries": [{"source": s, "target": t} for s, t in entries.items()],
    }
    response = client.post("/v1/glossaries", json=body, headers=headers)
    assert response.status_code in (200, 201), response.text
    return str(response.json()["glossary_id"])


def localize(client: httpx.Client, headers: dict[str, str], **fields: object) -> httpx.Response:
    body = {"text": "Open the quest log", "content_type": "ui", "source_lang": "en", "target_langs": ["es"], **fields}
    return client.post(GAME, json=body, headers=headers)


def test_a_memory_answers_the_lines_it_holds(client: httpx.Client, owner: dict[str, str]) -> None:
    memory_id = memory(client, owner, {"Open the quest log": "Abre el diario de misiones"}, name="game-es")
    before = localize(client, owner, text="Open the quest log\nTalk to the smith", target_langs=["es", "fr"]).json()
    assert "diario de misiones" not in before["translations"]["es"] and before["from_memory"] == {}
    data = localize(
        client, owner, text="open the  QUEST log\nTalk to the smith", target_langs=["es", "fr"], memory_id=memory_id
    ).json()
    assert data["translations"]["es"].split("\n")[0] == "Abre el diario de misiones"
    assert data["from_memory"] == {"es": [0]}
    assert "diario de misiones" not in data["translations"]["fr"]
    whole = localize(client, owner, memory_id=memory_id, context="A fantasy RPG menu.", instructions=["Use tú."]).json()
    assert whole["translations"] == {"es": "Abre el diario de misiones"} and whole["engines"] == {"es": "memory"}


def test_steering_fields_are_bounded_and_checked(client: httpx.Client, owner: dict[str, str], accounts: Accounts) -> None:
    assert_error(localize(client, owner, context="x" * 2001), 400, 1001)
    assert_error(localize(client, owner, instructions=["Be brief."] * 11), 400, 1001)
    assert_error(localize(client, owner, instructions=["x" * 301]), 400, 1001)
    assert_error(localize(client, owner, glossary_ids=["a", "b", "c", "d", "e", "f"]), 400, 1001)
    assert localize(client, owner, context="x" * 2000, instructions=["Be brief."] * 10).status_code == 200
    french = memory(client, owner, {"Hello": "Bonjour"}, target="fr", name="fr-only")
    assert_error(localize(client, owner, memory_id=french), 400, 1001)
    _other, token = accounts.create()
    theirs = memory(client, {"Authorization": f"Bearer {token}"}, {"Hello": "Hola"}, name="theirs")
    assert_error(localize(client, owner, memory_id=theirs), 400, 1001)
    assert_error(localize(client, owner, memory_id="tm_missing"), 400, 1001)


def test_glossaries_apply_per_target_and_a_conflict_is_refused(client: httpx.Client, owner: dict[str, str]) -> None:
    es = glossary(client, owner, "g-es", "es", {"quest log": "Diario"})
    fr = glossary(client, owner, "g-fr", "fr", {"quest log": "Carnet"})
    data = localize(client, owner, target_langs=["es", "fr"], glossary_ids=[es, fr]).json()
    assert "Diario" in data["translations"]["es"] and "Carnet" in data["translations"]["fr"]
    clash = glossary(client, owner, "g-es-2", "es", {"Quest Log": "Registro"})
    response = localize(client, owner, glossary_ids=[es, clash])
    assert_error(response, 400, 1001)
    assert "quest log" in response.json()["message"].lower()


def test_a_corrected_revision_teaches_the_memory_and_later_tasks_use_it(client: httpx.Client, owner: dict[str, str]) -> None:
    memory_id = memory(client, owner, {"The blacksmith sells swords.": "El herrero vende espadas."}, name="subs")
    files = {"file": ("talk.srt", SRT.encode(), "application/octet-stream")}
    fields = {
        "source_lang": "en",
        "target_lang": "es",
        "memory_id": memory_id,
        "instructions": "Use tú.",
        "context": "A fantasy RPG.",
    }
    response = client.post("/v1/subtitles/translate", data=fields, files=files, headers=owner)
    assert response.status_code == 200, response.text
    task = wait_done(client, owner, response.json()["task_id"])
    assert task["status"] == "completed", task
    assert task["result"]["memory"]["segments_from_memory"] == 1
    assert task["result"]["memory"]["from_memory"] == ["The blacksmith sells swords."]
    cues = list(srt.parse(download(client, task["result"]["subtitle_url"]).decode()))
    assert "El herrero vende espadas." in " ".join(c.content.replace("\n", " ") for c in cues)

    revised = client.post(
        f"/v1/video/task/{task['task_id']}/revise",
        json={"segments": [{"id": "s1", "translation": "Abre el diario de misiones."}]},
        headers=owner,
    )
    assert revised.status_code == 200, revised.text
    assert revised.json()["memory_learned"] == 1
    wait_revision(client, owner, revised.json()["task_id"])
    entries = client.get(f"/v1/memories/{memory_id}", headers=owner).json()["entries"]
    assert {"source": "Open the quest log.", "target": "Abre el diario de misiones."} in [
        {"source": e["source"], "target": e["target"]} for e in entries
    ]

    again = client.post("/v1/subtitles/translate", data=fields, files=files, headers=owner)
    later = wait_done(client, owner, again.json()["task_id"])
    assert later["result"]["memory"]["segments_from_memory"] == 2
    text = " ".join(c.content.replace("\n", " ") for c in srt.parse(download(client, later["result"]["subtitle_url"]).decode()))
    assert "Abre el diario de misiones." in text
