"""What the LLM engine sends with examples, one-segment and plain-prompt targets, against a loopback server."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from engines.translation.base import TranslationHints, TranslationRequest
from engines.translation.llm.engine import LLMEngine
from tests.integration.llm.conftest import STUB_MODEL as MODEL
from tests.integration.llm.llm_fakes import Loopback, Reply, Seen, completion, models_body, segments_of

BANK = "configs/translation-examples"


def answer(seen: Seen) -> str:
    """Every segment 'translated' by tagging it; plain for a one-segment ask, JSON for a batch."""
    texts = segments_of(seen)
    out = [f"[ja] {t}" for t in texts]
    user = [m for m in seen.body["messages"] if m["role"] == "user"][-1]["content"]
    plain = "Text:" in user or user.startswith("Translate the following ")
    return out[0] if plain else json.dumps({"translations": out}, ensure_ascii=False)


@pytest.fixture
def server(loopback) -> Loopback:
    def handle(seen: Seen) -> Reply:
        if seen.path == "/v1/models":
            return Reply(body=models_body(MODEL))
        return Reply(body=completion(answer(seen)))

    return loopback(handle)


@pytest.fixture
def engines(stub_engines: Callable[..., LLMEngine]) -> Callable[..., LLMEngine]:
    return lambda url, **options: stub_engines(url, output_checks=False, **options)


LINES = ("Open the door.", "Close the window.", "You found <x0/> coins.", "Talk to the guard.")


def test_examples_come_before_the_request_in_every_call(server: Loopback, engines) -> None:
    engine = engines(server.url, examples=BANK, example_count=2, batch_size=2)
    result = engine.translate(TranslationRequest(LINES, "en", "ja", hints=TranslationHints(content_type="tutorial")))
    assert result.texts == tuple(f"[ja] {t}" for t in LINES)
    for call in server.chat_requests():
        roles = [m["role"] for m in call.body["messages"]]
        assert roles == ["system", "user", "assistant", "user"]  # one example exchange for a batch
        shown = json.loads(call.body["messages"][2]["content"])["translations"]
        assert len(shown) == 2 and all(any("\u3040" <= ch <= "\u30ff" or ch > "\u4e00" for ch in s) for s in shown)


def test_targets_outside_example_targets_get_none(server: Loopback, engines) -> None:
    engine = engines(server.url, examples=BANK, example_targets=("de",), batch_size=4)
    engine.translate(TranslationRequest(LINES, "en", "ja"))
    (call,) = server.chat_requests()
    assert [m["role"] for m in call.body["messages"]] == ["system", "user"]


def test_single_segment_targets_send_each_segment_alone_in_plain_text(server: Loopback, engines) -> None:
    engine = engines(server.url, batch_size=8, single_segment_targets=("ja",))
    result = engine.translate(TranslationRequest(LINES, "en", "ja"))
    assert result.texts == tuple(f"[ja] {t}" for t in LINES)
    calls = server.chat_requests()
    assert len(calls) == len(LINES) and all("response_format" not in c.body for c in calls)
    assert sorted(segments_of(c)[0] for c in calls) == sorted(LINES)
    engine.translate(TranslationRequest(LINES, "en", "de"))
    assert len(server.chat_requests()) == len(LINES) + 1  # other targets still go as one batch


def test_a_lone_string_gets_no_examples(server: Loopback, engines) -> None:
    """A game string into several targets keeps one shared prompt prefix: no per-target examples."""
    engine = engines(server.url, examples=BANK, single_segment_targets=("ja",))
    engine.translate(TranslationRequest(("Open the door.",), "en", "de"))
    engine.translate(TranslationRequest(("Open the door.",), "en", "ja"))
    engine.translate(TranslationRequest(("Open the door.", "Close it."), "en", "ja"))
    assert [len(c.body["messages"]) for c in server.chat_requests()] == [2, 2, 2 + 2 * 3, 2 + 2 * 3]


def test_plain_prompt_targets_ask_each_segment_in_plain_wording(server: Loopback, engines) -> None:
    """No system rules, context or examples: one user turn, with only the rules the segment needs."""
    engine = engines(server.url, examples=BANK, batch_size=8, plain_prompt_targets=("ja",))
    hints = TranslationHints(max_length=40)
    result = engine.translate(TranslationRequest(LINES, "en", "ja", hints=hints, context=("Earlier line.",)))
    assert result.texts == tuple(f"[ja] {t}" for t in LINES)
    calls = server.chat_requests()
    assert len(calls) == len(LINES) and all("response_format" not in c.body for c in calls)
    for call in calls:
        (turn,) = call.body["messages"]
        assert turn["role"] == "user" and turn["content"].startswith("Translate the following English text into Japanese.")
        assert "at most 40 characters" in turn["content"] and "Earlier line." not in turn["content"]
        assert ("<x0/> or <x12/>" in turn["content"]) == ("<x0/>" in segments_of(call)[0])
    engine.translate(TranslationRequest(LINES, "en", "de", hints=hints))
    last = server.chat_requests()[-1]
    assert len(server.chat_requests()) == len(LINES) + 1 and last.body["messages"][0]["role"] == "system"


def test_professional_requests_keep_the_full_prompt_on_plain_targets(server: Loopback, engines) -> None:
    """Professional video keeps its wide context and review pass: one JSON batch with the system rules."""
    engine = engines(server.url, batch_size=8, plain_prompt_targets=("ja",))
    engine.translate(TranslationRequest(LINES, "en", "ja", hints=TranslationHints(mode="professional")))
    first = server.chat_requests()[0]
    assert first.body["messages"][0]["role"] == "system" and sorted(segments_of(first)) == sorted(LINES)
