"""Steering fields (core/specs/steering.py), glossary merging (serve_app/steering.py), game localization and a
task's requests with a memory (engines/localization.py, pipelines/steered_translation.py), corrections."""

from __future__ import annotations

import asyncio
from typing import Any

import pydantic
import pytest

from core.errors import ApiError, ErrorKind
from core.specs.steering import MAX_CONTEXT_CHARS, SteeringOptions, form_lists, named_glossaries
from core.specs.transcript import SegmentEdit, StoredTranscript
from engines.localization import LocalizationJob, localize, segments_of
from engines.translation.base import TranslationHints, TranslationRequest, TranslationResult
from engines.translation.glossary import Glossary
from engines.translation.memory import MemoryIndex, plan_memory
from pipelines.steered_translation import Steering
from serve_app.memory_learning import corrections
from serve_app.schemas.video import VideoTranslateParams
from serve_app.steering import covers, merged, snapshots

PAIRS = [
    ("Open the quest log", "Abre el diario de misiones"),
    ("Your quest log is full", "Tu diario de misiones está lleno"),
    ("Drink a health potion", "Bebe una poción de vida"),
]


class Recorder:
    """A translate callable that marks each text and records the requests it got."""

    def __init__(self) -> None:
        self.calls: list[TranslationRequest] = []

    async def __call__(self, request: TranslationRequest, glossary: Glossary | None) -> TranslationResult:
        self.calls.append(request)
        return TranslationResult(tuple(f"<{t}>" for t in request.texts), engine="recorder")


# -- the fields -------------------------------------------------------------------------------------------


def test_bounds_are_enforced() -> None:
    SteeringOptions(context="x" * MAX_CONTEXT_CHARS, instructions=["y" * 300] * 10, glossary_ids=["a", "b", "c", "d", "e"])
    for bad in (
        {"context": "x" * (MAX_CONTEXT_CHARS + 1)},
        {"context": "bell\x07"},
        {"instructions": ["y"] * 11},
        {"instructions": ["y" * 301]},
        {"instructions": ["two\nlines"]},
        {"instructions": ["   "]},
        {"glossary_ids": ["a", "b", "c", "d", "e", "f"]},
        {"glossary_ids": ["a", "a"]},
        {"glossary_ids": ["../x"]},
        {"memory_id": "tm x"},
    ):
        with pytest.raises(pydantic.ValidationError):
            SteeringOptions.model_validate(bad)


def test_form_conventions_become_lists() -> None:
    assert form_lists({"glossary_ids": " a, b ,,c"})["glossary_ids"] == ["a", "b", "c"]
    assert form_lists({"instructions": "Use tú."})["instructions"] == ["Use tú."]
    assert form_lists({"instructions": '["One.", "Two."]'})["instructions"] == ["One.", "Two."]
    assert form_lists({"instructions": ["One.", "Two."]})["instructions"] == ["One.", "Two."]
    params = VideoTranslateParams.model_validate(
        {"target_lang": "es", "video_url": "https://x.test/a.mp4", "instructions": '["A.", "B."]', "glossary_ids": "g1,g2"}
    )
    assert params.instructions == ["A.", "B."] and params.glossary_ids == ["g1", "g2"]
    with pytest.raises(pydantic.ValidationError):
        VideoTranslateParams.model_validate({"target_lang": "es", "instructions": "[not json"})


def test_named_glossaries_puts_the_contract_field_first_once() -> None:
    assert named_glossaries("g2", ["g1", "g2", "g3"]) == ["g2", "g1", "g3"]
    assert named_glossaries(None, []) == []


# -- several glossaries ----------------------------------------------------------------------------------


def record(glossary_id: str, target: str, entries: dict[str, str], case_sensitive: bool = False) -> dict[str, Any]:
    return {
        "glossary_id": glossary_id,
        "account_id": "acct",
        "source_lang": "en",
        "target_lang": target,
        "case_sensitive": case_sensitive,
        "entries": [{"source": k, "target": v} for k, v in entries.items()],
    }


def test_glossaries_that_agree_merge_and_a_conflict_is_refused() -> None:
    one = record("g1", "es", {"quest log": "diario de misiones", "sword": "espada"})
    two = record("g2", "es", {"Quest  Log": "diario de misiones", "shield": "escudo"})
    snapshot = merged([one, two])
    glossary = snapshot.engine_glossary()
    assert {e.source for e in snapshot.entries} == {"quest log", "sword", "shield"}
    assert [span.replacement for span in glossary.matches("A sword and a shield")] == ["espada", "escudo"]
    clash = record("g3", "es", {"SWORD": "sable"})
    with pytest.raises(ApiError) as refused:
        merged([one, clash])
    assert refused.value.kind is ErrorKind.INVALID_PARAMETER and "g1" in str(refused.value) and "g3" in str(refused.value)


def test_each_target_gets_the_glossaries_for_it() -> None:
    es, fr = record("g_es", "es", {"sword": "espada"}), record("g_fr", "fr", {"sword": "épée"})
    out = snapshots([es, fr], "en", ["es", "fr", "de"])
    assert set(out) == {"es", "fr"} and out["fr"].entries[0].target == "épée"
    with pytest.raises(ApiError) as refused:
        snapshots([es, fr], "en", ["es"])
    assert refused.value.kind is ErrorKind.GLOSSARY_NOT_FOUND
    assert set(snapshots([es, fr], "en", ["es"], every_one_used=False)) == {"es"}
    assert covers(es, None, "es") and covers(record("g", "pt", {}), "en", "pt-BR") and not covers(es, "fr", "es")


# -- game localization with a memory ---------------------------------------------------------------------


def test_game_lines_the_memory_holds_never_reach_the_engine() -> None:
    text = "open the QUEST log\n\nTalk to the blacksmith\nYour  quest log is full"
    index = MemoryIndex.build(PAIRS)
    plan = plan_memory(segments_of(text), index)
    job = LocalizationJob(
        text, "en", ("es", "fr"), "ui", context="A fantasy RPG.", instructions=("Use tú.",), memory_target="es", memory_plan=plan
    )
    rec = Recorder()
    outcome = asyncio.run(localize(job, rec))
    lines = outcome.translations["es"].split("\n")
    assert lines[0] == "Abre el diario de misiones" and lines[3] == "Tu diario de misiones está lleno" and lines[1] == ""
    assert lines[2] == "<Talk to the blacksmith>"
    assert outcome.from_memory == {"es": (0, 3)}
    sent = {c.target_lang: c for c in rec.calls}
    assert sent["es"].texts == ("Talk to the blacksmith",) and len(sent["fr"].texts) == 3
    assert not sent["fr"].examples
    assert all(c.hints.client_context == "A fantasy RPG." and c.hints.instructions == ("Use tú.",) for c in rec.calls)


# -- a task's requests -----------------------------------------------------------------------------------


class Memories:
    def __init__(self, target: str = "es") -> None:
        self.record = {"memory_id": "tm1", "source_lang": "en", "target_lang": target, "revision": 3}
        self.reads = 0

    async def get(self, memory_id: str) -> dict[str, Any] | None:
        return self.record if memory_id == "tm1" else None

    async def pairs(self, memory_id: str) -> list[tuple[str, str]]:
        self.reads += 1
        return list(PAIRS)


def test_a_task_uses_its_memory_for_its_pair_only_and_reports_it() -> None:
    memories, rec = Memories(), Recorder()
    steering = Steering("A cooking show.", ("Use tú.",), "tm1", memories)
    translate = steering.wrap(rec)

    async def run() -> list[TranslationResult]:
        es = TranslationRequest(("Drink a health potion!", "drink a health  POTION", "Stir slowly"), "en", "es")
        fr = TranslationRequest(("Drink a health potion",), "en", "fr")
        draft = TranslationRequest(("Drink a health potion",), "en", "es", hints=TranslationHints(draft="x", max_length=5))
        return [await translate(es, None), await translate(fr, None), await translate(draft, None)]

    es, fr, _ = asyncio.run(run())
    assert es.texts[1] == "Bebe una poción de vida" and es.texts[2] == "<Stir slowly>"
    assert fr.texts == ("<Drink a health potion>",)
    assert memories.reads == 1
    assert [c.texts for c in rec.calls] == [
        ("Drink a health potion!", "Stir slowly"),
        ("Drink a health potion",),
        ("Drink a health potion",),
    ]
    assert rec.calls[0].examples and not rec.calls[1].examples
    assert all(c.hints.client_context == "A cooking show." and c.hints.instructions == ("Use tú.",) for c in rec.calls)
    report = steering.report()
    assert report is not None and report["segments_from_memory"] == 1 and report["from_memory"] == ["drink a health  POTION"]


def test_a_task_whose_memory_is_gone_still_translates() -> None:
    rec = Recorder()
    steering = Steering(memory_id="tm_gone", memories=Memories())
    result = asyncio.run(steering.wrap(rec)(TranslationRequest(("Open the quest log",), "en", "es"), None))
    assert result.texts == ("<Open the quest log>",) and not rec.calls[0].examples
    assert Steering().report() is None


# -- corrections ------------------------------------------------------------------------------------------


def test_corrections_pair_each_translation_edit_with_its_source() -> None:
    transcript = StoredTranscript.model_validate(
        {
            "task_id": "t",
            "source_lang": "en",
            "target_lang": "es",
            "duration": 4.0,
            "span": [0.0, 4.0],
            "segments": [
                {"id": "s1", "start": 0, "end": 1, "source": "Hello there", "translation": "Hola allí", "cues": []},
                {"id": "s2", "start": 1, "end": 2, "source": "Goodbye", "translation": "Adiós", "cues": []},
            ],
        }
    )
    edits = [
        SegmentEdit(id="s1", translation="Hola"),
        SegmentEdit(id="s2", source="Good night", translation="Buenas noches"),
        SegmentEdit(id="s2", speaker="Ana"),
    ]
    assert corrections(transcript, edits) == [("Hello there", "Hola"), ("Good night", "Buenas noches")]
