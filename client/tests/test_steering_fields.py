"""The steering fields (``context``, ``instructions``, ``glossary_ids``, ``memory_id``) on the wire: JSON bodies carry
lists, forms repeat ``instructions`` once per instruction and join ``glossary_ids`` with commas; unset ones are not sent."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conftest import PARENT, LoopbackServer, Reply, form_values, serve_add_language, serve_form, serve_revise
from mediatrans_client import AsyncClient, Client, LocalizationResult
from mediatrans_client import _async_resources as async_groups
from mediatrans_client import _sync_resources as sync_groups
from mediatrans_client.file_localization import FileLocalizer
from mediatrans_client.l10n import load

STEERING = ("context", "instructions", "glossary_ids", "memory_id")
KWARGS: dict[str, Any] = {
    "context": "A fantasy RPG: menus and quest text for teenagers.",
    "instructions": ("Use informal tú", "Keep brand names in English"),
    "glossary_ids": ["g-1", "g-2"],
    "memory_id": "m-1",
}
AS_JSON = {**KWARGS, "instructions": list(KWARGS["instructions"])}
AS_FORM = {
    "context": [KWARGS["context"]],
    "instructions": list(KWARGS["instructions"]),
    "glossary_ids": ["g-1,g-2"],
    "memory_id": ["m-1"],
}


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "talk.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    return path


def test_a_video_submission_repeats_instructions_and_joins_glossaries(
    server: LoopbackServer, client: Client, video: Path
) -> None:
    seen = serve_form(server)
    client.video.translate(video, target_lang="es", **KWARGS)
    client.video.translate("https://cdn.example.com/v.mp4", target_lang="es", **KWARGS)  # a form without a file
    for request in seen:
        sent = form_values(request)
        assert {name: sent[name] for name in STEERING} == AS_FORM
        assert sent["target_lang"] == ["es"]


def test_a_subtitle_submission_sends_them_alike(server: LoopbackServer, client: Client) -> None:
    seen = serve_form(server, "/v1/subtitles/translate")
    client.subtitles.translate(b"1\n00:00:01,000 --> 00:00:02,000\nHello.\n", "es", **KWARGS)
    assert form_values(seen[0]) == {"target_lang": ["es"], **AS_FORM}


def test_one_instruction_a_string_of_glossaries_and_empty_lists(server: LoopbackServer, client: Client, video: Path) -> None:
    seen = serve_form(server)
    client.video.translate(video, target_lang="es", instructions="Use informal tú", glossary_ids="g-1,g-2")
    client.video.translate(video, target_lang="es", instructions=[], glossary_ids=[])
    client.video.translate(video, target_lang="es", instructions=["[Name] tags stay as they are"])
    assert form_values(seen[0]) == {"target_lang": ["es"], "instructions": ["Use informal tú"], "glossary_ids": ["g-1,g-2"]}
    assert form_values(seen[1]) == {"target_lang": ["es"]}
    # A lone value starting with "[" would be read as a JSON array of instructions: it is sent as one.
    assert form_values(seen[2])["instructions"] == ['["[Name] tags stay as they are"]']


def test_unset_steering_fields_are_not_sent(server: LoopbackServer, client: Client, video: Path) -> None:
    seen = serve_form(server)
    added = serve_add_language(server)
    server.route("POST", "/v1/game/localization")(lambda r: Reply(200, {"original": "Start", "translations": {"es": "Inicio"}}))
    client.video.translate(video, target_lang="es")
    client.video.add_language(PARENT, "de")
    client.game.localize("Start", "en", ["es"])
    assert form_values(seen[0]) == {"target_lang": ["es"]}
    assert json.loads(added[0].body) == {"target_lang": "de"}
    assert json.loads(server.requests_to("POST", "/v1/game/localization")[0].body) == {
        "text": "Start",
        "content_type": "ui",
        "source_lang": "en",
        "target_langs": ["es"],
    }


def test_an_added_language_sends_them_as_json(server: LoopbackServer, client: Client) -> None:
    seen = serve_add_language(server)
    client.video.add_language(PARENT, "de", glossary_id="g-0", **KWARGS)
    assert json.loads(seen[0].body) == {"target_lang": "de", "glossary_id": "g-0", **AS_JSON}


def test_a_revision_names_the_memory_its_translations_feed(server: LoopbackServer, client: Client) -> None:
    seen = serve_revise(server)
    client.video.revise(PARENT, [{"id": "s1", "translation": "Hola."}], memory_id="m-1")
    assert json.loads(seen[0].body) == {"segments": [{"id": "s1", "translation": "Hola."}], "memory_id": "m-1"}


def test_game_localization_sends_them_and_reads_from_memory(server: LoopbackServer, client: Client) -> None:
    answer = {"original": "Open\nquest log", "translations": {"es": "Abrir\ndiario de misiones"}, "from_memory": {"es": [1]}}
    server.route("POST", "/v1/game/localization")(lambda r: Reply(200, answer))
    result = client.game.localize("Open\nquest log", "en", ["es"], **KWARGS)
    assert result.from_memory == {"es": [1]}
    body = json.loads(server.requests_to("POST", "/v1/game/localization")[0].body)
    assert {name: body[name] for name in STEERING} == AS_JSON


def test_the_async_client_sends_the_same(server: LoopbackServer, video: Path) -> None:
    submitted = serve_form(server)
    added = serve_add_language(server)
    revised = serve_revise(server)
    server.route("POST", "/v1/game/localization")(lambda r: Reply(200, {"original": "x", "translations": {}}))

    async def go() -> None:
        async with AsyncClient(server.base_url, "tok") as client:
            await client.video.translate(video, target_lang="es", **KWARGS)
            await client.video.add_language(PARENT, "de", **KWARGS)
            await client.video.revise(PARENT, [{"id": "s1", "translation": "Hola."}], memory_id="m-1")
            await client.game.localize("x", "en", ["es"], **KWARGS)

    asyncio.run(go())
    assert {name: form_values(submitted[0])[name] for name in STEERING} == AS_FORM
    assert json.loads(added[0].body) == {"target_lang": "de", **AS_JSON}
    assert json.loads(revised[0].body)["memory_id"] == "m-1"
    body = json.loads(server.requests_to("POST", "/v1/game/localization")[0].body)
    assert {name: body[name] for name in STEERING} == AS_JSON


@pytest.mark.parametrize(
    ("sync_method", "async_method", "fields"),
    [
        (sync_groups.Video.translate, async_groups.AsyncVideo.translate, STEERING),
        (sync_groups.Video.add_language, async_groups.AsyncVideo.add_language, STEERING),
        (sync_groups.Subtitles.translate, async_groups.AsyncSubtitles.translate, STEERING),
        (sync_groups.Game.localize, async_groups.AsyncGame.localize, STEERING),
        (sync_groups.Video.revise, async_groups.AsyncVideo.revise, ("memory_id",)),
    ],
)
def test_the_fields_are_keyword_only_and_default_to_none(sync_method: Any, async_method: Any, fields: Sequence[str]) -> None:
    for method in (sync_method, async_method):
        parameters = inspect.signature(method).parameters
        for name in fields:
            assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY and parameters[name].default is None, name
    assert "context" not in inspect.signature(sync_groups.Video.revise).parameters


class MemoryService:
    """``game.localize`` that answers the lines it knows from its memory, and reports them in ``from_memory``."""

    def __init__(self, memory: dict[str, str]) -> None:
        self.memory = memory
        self.options: list[dict[str, Any]] = []

    def localize(self, text: str, source_lang: str, target_langs: Sequence[str], **options: Any) -> LocalizationResult:
        self.options.append(options)
        lines = text.split("\n")
        hits = [i for i, line in enumerate(lines) if line in self.memory]
        out = {lang: "\n".join(self.memory.get(line, f"{lang}:{line}") for line in lines) for lang in target_langs}
        return LocalizationResult(original=text, translations=out, from_memory={lang: hits for lang in target_langs})


def test_a_localized_file_counts_the_texts_answered_from_the_memory(tmp_path: Path) -> None:
    source = tmp_path / "ui.csv"
    source.write_text(
        'key,en\nlog,quest log\nplay,Play\nmulti,"quest log\nPlay"\nboth,"quest log\nquest log"\n', encoding="utf-8"
    )
    service = MemoryService({"quest log": "diario de misiones"})
    localizer = FileLocalizer(service, "en", ["es"], memory_id="m-1", context="RPG", instructions=["Use tú"], glossary_ids=None)
    report = localizer.run(load(source, "en"))
    assert report.from_memory == {"es": 2}  # "quest log" and the text whose every line is from the memory
    assert report.translations["es"]["log"].text == "diario de misiones"
    sent = {"content_type": "ui", "memory_id": "m-1", "context": "RPG", "instructions": ["Use tú"]}
    assert service.options[0] == sent  # glossary_ids=None left out
