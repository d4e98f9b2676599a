"""``client.memories`` and ``mediatrans memories`` against the real service, and the steering fields accepted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import srt
from mediatrans_client import Client, InvalidRequestError, MemoryEntry, NotFoundError

from tests.integration.conftest import Accounts

pytestmark = pytest.mark.serve

MEDIATRANS = Path(sys.executable).with_name("mediatrans")
PAIRS = [("Open the quest log", "Abre el diario de misiones"), ("Quest complete!", "¡Misión cumplida!")]
TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x"
 creationtool="t" creationtoolversion="1"/><body>
<tu><tuv xml:lang="en"><seg>Open the door</seg></tuv><tuv xml:lang="es"><seg>Abre la puerta</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Save the game</seg></tuv><tuv xml:lang="es"><seg>Guarda la partida</seg></tuv></tu>
</body></tmx>"""


@pytest.fixture
def api(serve_base_url: str, accounts: Accounts) -> Iterator[Client]:
    _account, token = accounts.create()
    with Client(serve_base_url, token, timeout=60) as client:
        yield client


def test_a_memory_round_trip(api: Client) -> None:
    memory = api.memories.create("quests", "en", "es", entries=PAIRS, description="Quest log")
    assert (memory.name, memory.source_lang, memory.target_lang, memory.entry_count) == ("quests", "en", "es", 2)
    assert memory.revision == 1 and memory.description == "Quest log"
    assert [m.memory_id for m in api.memories.iter_all()] == [memory.memory_id]
    page = api.memories.list(limit=1)
    assert page.total == 1 and page.memories[0].entries is None
    read = api.memories.get(memory.memory_id)
    assert {(e.source, e.target) for e in read.entries or []} == set(PAIRS) and read.next_cursor is None

    added = api.memories.add_entries(memory.memory_id, [{"source": "quest COMPLETE!", "target": "¡Hecho!"}, ("Sword", "Espada")])
    assert (added.added, added.replaced) == (1, 1)
    assert added.memory is not None and added.memory.entry_count == 3 and added.memory.revision == 2
    one_by_one = api.memories.get(memory.memory_id, limit=1)
    assert len(one_by_one.entries or []) == 1 and one_by_one.next_cursor
    assert len(list(api.memories.iter_entries(memory.memory_id))) == 3

    deleted = api.memories.delete_entries(memory.memory_id, ["sword"])
    assert deleted.deleted == 1 and deleted.memory is not None and deleted.memory.entry_count == 2
    replaced = api.memories.replace_entries(memory.memory_id, [MemoryEntry(source="Quest", target="Misión")])
    assert replaced.memory is not None and replaced.memory.entry_count == 1
    assert api.memories.delete(memory.memory_id) is True
    with pytest.raises(NotFoundError):
        api.memories.get(memory.memory_id)


def test_a_memory_from_a_tmx_file(api: Client, tmp_path: Path) -> None:
    path = tmp_path / "game.tmx"
    path.write_text(TMX, encoding="utf-8")
    memory = api.memories.create("from-file", "en", "es", file=path)
    assert memory.entry_count == 2
    from_bytes = api.memories.create("from-bytes", "en", "es", file=TMX.encode())
    assert from_bytes.entry_count == 2


def test_an_exact_match_is_answered_from_the_memory_with_context_and_instructions(api: Client) -> None:
    memory = api.memories.create("ui", "en", "es", entries={"Open the quest log": "Abre el diario de misiones"})
    result = api.game.localize(
        "Open the quest log\nSave the game",
        "en",
        ["es"],
        context="A fantasy RPG for teenagers: menu buttons.",
        instructions=["Use informal tú", "Keep brand names in English"],
        memory_id=memory.memory_id,
    )
    assert result.translations["es"].split("\n")[0] == "Abre el diario de misiones"
    assert result.from_memory == {"es": [0]}


SUBTITLES = b"""1
00:00:01,000 --> 00:00:03,000
Open the quest log.

2
00:00:03,500 --> 00:00:06,000
The weather is nice today.
"""


def _glossary(api: Client, name: str, source: str, target: str) -> str:
    """A glossary made over plain HTTP (the client has no glossary methods)."""
    headers = {"Authorization": f"Bearer {api.settings.token}"}
    body = {"name": name, "source_lang": "en", "target_lang": "es", "entries": [{"source": source, "target": target}]}
    created = httpx.post(f"{api.settings.base_url}/v1/glossaries", json=body, headers=headers, timeout=60)
    assert created.status_code == 201, created.text
    return str(created.json()["glossary_id"])


@pytest.mark.models
def test_a_subtitle_form_carries_every_steering_field(api: Client, tmp_path: Path) -> None:
    """Instructions repeated, glossaries comma-joined, the memory answering its exact match; bounds are the service's."""
    memory = api.memories.create("subs", "en", "es", entries={"Open the quest log.": "Abre el diario de misiones."})
    glossaries = [_glossary(api, "ui", "market", "mercado"), _glossary(api, "weather", "weather", "tiempo")]
    steering = {
        "context": "Subtitles of a fantasy RPG trailer.",
        "instructions": ["[Names] stay in English"],  # one instruction that starts with "["
        "glossary_ids": glossaries,
        "memory_id": memory.memory_id,
    }
    task = api.subtitles.translate(SUBTITLES, "es", source_lang="en", **steering, wait=True, poll_interval=1, timeout=300)
    (path,) = api.video.download(task, tmp_path)
    cues = list(srt.parse(path.read_text(encoding="utf-8")))
    assert cues[0].content == "Abre el diario de misiones."  # the cue is a sentence the memory holds
    two = api.subtitles.translate(SUBTITLES, "es", source_lang="en", instructions=["Use informal tú", "Be brief"])
    assert two.status == "queued"
    with pytest.raises(InvalidRequestError):
        api.subtitles.translate(SUBTITLES, "es", source_lang="en", instructions=[f"rule {n}" for n in range(11)])


def _mediatrans(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(MEDIATRANS), *args], env=env, capture_output=True, text=True, timeout=120)


def test_the_memories_commands(serve_base_url: str, accounts: Accounts, tmp_path: Path) -> None:
    _account, token = accounts.create()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEDIATRANS_")},
        "MEDIATRANS_BASE_URL": serve_base_url,
        "MEDIATRANS_TOKEN": token,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("source\ttarget\n" + "".join(f"{s}\t{t}\n" for s, t in PAIRS), encoding="utf-8")
    created = _mediatrans(env, "--json", "memories", "create", "quests", "--from", "en", "--to", "es", "--pairs", str(pairs))
    assert created.returncode == 0, created.stderr
    mid = json.loads(created.stdout)["memory_id"]
    listed = _mediatrans(env, "--json", "memories", "list")
    assert listed.returncode == 0 and [m["memory_id"] for m in json.loads(listed.stdout)["memories"]] == [mid]
    added = _mediatrans(env, "--json", "memories", "add", mid, "--source", "Sword", "--target", "Espada")
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["added"] == 1
    shown = _mediatrans(env, "--json", "memories", "show", mid, "--all")
    assert shown.returncode == 0, shown.stderr
    assert len(json.loads(shown.stdout)["entries"]) == 3
    removed = _mediatrans(env, "--json", "memories", "remove", mid, "--source", "sword")
    assert removed.returncode == 0 and json.loads(removed.stdout)["deleted"] == 1
    assert _mediatrans(env, "memories", "delete", mid, "-y").returncode == 0
    assert _mediatrans(env, "memories", "show", mid).returncode == 4
