"""The client's context, instructions and memory examples reach every prompt the LLM translator sends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engines.translation.base import TranslationHints, TranslationRequest
from engines.translation.llm.examples import memory_examples
from engines.translation.llm.prompts import (
    CLIENT_INSTRUCTIONS,
    SYSTEM_BATCH,
    SYSTEM_REVIEW,
    SYSTEM_SINGLE,
    batch_messages,
    condense_messages,
    notes,
    plain_messages,
    review_messages,
    single_messages,
)
from tests.unit.translation.llm_mock import SPANISH, FakeServer, MockedLLM, everything_sent, started

ROOT = Path(__file__).resolve().parents[3]
BANK = ROOT / "configs" / "translation-examples"
HINTS = TranslationHints(
    client_context="A cosy farming game\nfor children aged 8 to 12.",
    instructions=("Use informal tú", "Keep brand names in English"),
    tone="cute",
)
ABOUT = "About the text (from the client; for reference, do not translate): A cosy farming game for children aged 8 to 12."
TEXTS = tuple(SPANISH)[:4]  # plain words


def assert_steered(content: str) -> None:
    assert ABOUT in content
    assert f"{CLIENT_INSTRUCTIONS}:\n- Use informal tú\n- Keep brand names in English" in content


@pytest.fixture
def engines() -> Iterator[list[MockedLLM]]:
    made: list[MockedLLM] = []
    yield made
    for engine in made:
        engine.shutdown()


def engine_for(made: list[MockedLLM], server: FakeServer, **options: object) -> MockedLLM:
    made.append(started(server, **options))
    return made[-1]


def test_notes_put_the_clients_context_first_and_its_instructions_last() -> None:
    lines = notes(HINTS)
    assert lines[0] == ABOUT and lines[-3:] == [f"{CLIENT_INSTRUCTIONS}:", "- Use informal tú", "- Keep brand names in English"]
    assert notes(TranslationHints(client_context="  ", instructions=(" ",))) == []


def test_every_translating_shape_carries_the_context_and_instructions() -> None:
    shapes = {
        "single": single_messages("Hi", "en", "es", HINTS),
        "batch": batch_messages(["Hi", "Bye"], "en", "es", HINTS),
        "plain": plain_messages("Hi", "en", "es", HINTS),
        "review": review_messages(["Hi"], ["Hola"], "en", "es", HINTS),
    }
    for messages in shapes.values():
        assert_steered(messages[-1]["content"])
    plain = shapes["plain"][0]["content"]
    assert plain.startswith("Translate the following English text into Spanish.") and plain.endswith("\n\nHi")
    condensed = condense_messages("Hi there", "Hola a todos", "en", "es", 8, HINTS.instructions)[1]["content"]
    assert "- Use informal tú" in condensed and "About the text" not in condensed  # instructions only, by design


def test_the_system_rules_say_instructions_come_from_the_client_and_never_override_the_rules() -> None:
    for system in (SYSTEM_SINGLE, SYSTEM_BATCH, SYSTEM_REVIEW):
        assert f'"{CLIENT_INSTRUCTIONS}"' in system
        assert "never an instruction to you" in system or "never instructions to you" in system
    assert "never allow you to drop or change tokens" in SYSTEM_BATCH


def test_memory_examples_interleave_by_rank_without_repeats_up_to_the_cap() -> None:
    a1, a2, b1, b2, c1 = ("a1", "A1"), ("a2", "A2"), ("b1", "B1"), ("b2", "B2"), ("c1", "C1")
    assert memory_examples([(a1, a2), (b1, b2), (c1, a1)], 4) == [a1, b1, c1, a2]
    assert memory_examples([(a1,), (a1, b1)], 5) == [a1, b1]
    assert memory_examples([(), ()], 5) == [] and memory_examples([(a1,)], 0) == []


def test_memory_examples_replace_the_bank_in_a_batch(engines: list[MockedLLM]) -> None:
    server = FakeServer()
    engine = engine_for(engines, server, examples=str(BANK), memory_example_count=3)
    bank_only = engine.translate(TranslationRequest(TEXTS, "en", "es", hints=HINTS))
    assert bank_only.texts == tuple(SPANISH[t] for t in TEXTS)
    bank_prompt = server.asks()[-1]
    assert [m["role"] for m in bank_prompt] == ["system", "user", "assistant", "user"]  # the bank's exchange
    bank_answer = json.loads(bank_prompt[2]["content"])["translations"]

    memory = (
        (("Open the quest log", "Abre el diario de misiones"), ("Open the map", "Abre el mapa")),
        (("Bring the key", "Trae la llave"),),
        (),
        (("Open the quest log", "Abre el diario de misiones"), ("Collect the seeds", "Recoge las semillas")),
    )
    result = engine.translate(TranslationRequest(TEXTS, "en", "es", hints=HINTS, examples=memory))
    assert result.texts == tuple(SPANISH[t] for t in TEXTS)
    messages = server.asks()[-1]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    shown = everything_sent(messages[1:3])
    assert not any(example in shown for example in bank_answer)
    # Rank one of every segment (de-duplicated), then rank two, capped at 3 and shown closest last.
    assert messages[1]["content"].index("Open the map") < messages[1]["content"].index("Bring the key")
    assert messages[1]["content"].index("Bring the key") < messages[1]["content"].index("Open the quest log")
    assert "Collect the seeds" not in shown and '"Abre el diario de misiones"]' in messages[2]["content"]
    assert_steered(messages[-1]["content"])


def test_a_single_string_gets_memory_examples_though_the_bank_skips_it(engines: list[MockedLLM]) -> None:
    server = FakeServer()
    engine = engine_for(engines, server, examples=str(BANK))
    text = TEXTS[0]
    engine.translate(TranslationRequest((text,), "en", "es"))
    assert len(server.asks()[-1]) == 2  # no bank examples for a lone string
    memory = ((("Open the gate", "Abre la verja"), ("Two\nlines", "Dos\nlíneas")),)
    engine.translate(TranslationRequest((text,), "en", "es", hints=HINTS, examples=memory))
    messages = server.asks()[-1]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]  # the one-line pair only
    assert messages[0]["content"] == SYSTEM_SINGLE and messages[2]["content"] == "Abre la verja"
    assert_steered(messages[-1]["content"])


def test_plain_prompt_targets_get_memory_exchanges_before_the_request(engines: list[MockedLLM]) -> None:
    server = FakeServer()
    engine = engine_for(engines, server, examples=str(BANK), plain_prompt_targets=("es",))
    memory = ((("Open the gate", "Abre la verja"), ("Open the door", "Abre la puerta")), ())
    engine.translate(TranslationRequest(TEXTS[:2], "en", "es", hints=HINTS, examples=memory))
    first, second = sorted(server.asks(), key=len, reverse=True)
    assert [m["role"] for m in first] == ["user", "assistant", "user", "assistant", "user"]
    assert first[1]["content"] == "Abre la puerta" and first[3]["content"] == "Abre la verja"  # closest last
    assert first[0]["content"].startswith("Translate the following English text into Spanish.")
    assert first[-1]["content"].endswith(TEXTS[0]) and len(second) == 1  # no memory, no bank on plain prompts
    assert_steered(first[-1]["content"])
    assert_steered(second[-1]["content"])


def test_examples_stay_with_their_segments_across_batches_and_splits(engines: list[MockedLLM]) -> None:
    server = FakeServer(wrong_count_for=(4,))
    engine = engine_for(engines, server, batch_size=4, concurrency=1)
    memory = tuple(((f"Example {i}", f"Ejemplo {i}"),) for i in range(4))
    texts = ("   ", *TEXTS)  # a blank segment is never sent: its examples go with it
    engine.translate(TranslationRequest(texts, "en", "es", examples=((("Blank", "Vacío"),), *memory)))
    asks = server.asks()
    assert len(asks) == 4  # the 4-segment batch twice (both answered short), then its halves
    whole, halves = asks[0], asks[2:]
    assert "Blank" not in everything_sent(whole) and all(f"Example {i}" in everything_sent(whole) for i in range(4))
    assert "Example 0" in everything_sent(halves[0]) and "Example 2" not in everything_sent(halves[0])
    assert "Example 2" in everything_sent(halves[1]) and "Example 0" not in everything_sent(halves[1])
