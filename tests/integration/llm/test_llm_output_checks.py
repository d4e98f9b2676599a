"""The LLM engine's output checks, review pass and context windows, against scripted answers.

A loopback server plays the model, so each misbehaviour happens on demand:
an answer in the source language, a dropped token, a reviewer that improves or
ruins the drafts.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from engines.errors import EngineFailure
from engines.translation.base import TranslationHints, TranslationRequest
from engines.translation.llm.engine import LLMEngine
from tests.integration.llm.llm_fakes import Loopback, Reply, Seen, completion, models_body, segments_of

MODEL = "stub"
GERMAN = {
    "The train to London leaves in twenty minutes.": "Der Zug nach London fährt in zwanzig Minuten ab.",
    "We need to talk about what you said yesterday.": "Wir müssen über das reden, was du gestern gesagt hast.",
    "Nobody knows what happened that night.": "Niemand weiß, was in jener Nacht geschah.",
}


@pytest.fixture
def serve(loopback) -> Callable[[Callable[[Seen], str]], Loopback]:
    def make(answer: Callable[[Seen], str]) -> Loopback:
        def handle(seen: Seen) -> Reply:
            if seen.path == "/v1/models":
                return Reply(body=models_body(MODEL))
            return Reply(body=completion(answer(seen)))

        return loopback(handle)

    return make


@pytest.fixture
def engines(stub_engines: Callable[..., LLMEngine]) -> Callable[..., LLMEngine]:
    return stub_engines


def german(seen: Seen) -> str:
    texts = segments_of(seen)
    out = [GERMAN[t] for t in texts]
    return out[0] if len(out) == 1 and "Text:" in seen.body["messages"][-1]["content"] else json.dumps({"translations": out})


def is_reask(seen: Seen) -> bool:
    """A re-ask samples (a greedy repeat would give the same answer)."""
    return float(seen.body.get("temperature") or 0) > 0


def test_an_answer_in_the_source_language_is_re_asked_afresh_and_sampled(serve, engines) -> None:
    text = "The train to London leaves in twenty minutes."
    server = serve(lambda seen: GERMAN[text] if is_reask(seen) else "The train to London leaves in 20 minutes.")
    engine = engines(server.url)
    result = engine.translate(TranslationRequest((text,), "en", "de"))
    assert result.texts == (GERMAN[text],)
    first, second = (r.body for r in server.chat_requests()[:2])
    # One segment is asked again as it was (small models translate a correction instead of heeding it),
    # but sampled, so the greedy answer is not simply repeated.
    assert second["messages"] == first["messages"]
    assert first["temperature"] == 0 and second["temperature"] > 0 and "seed" in second
    assert engine.stats()["rejected_language"] == 1 and engine.stats()["reasks"] == 1


def test_a_looping_answer_is_re_asked_with_a_frequency_penalty(serve, engines) -> None:
    """Every call carries the loop guard; the sampled re-ask is also penalised for reusing tokens, so a model
    stuck on one token (¡¡¡…) takes another path."""
    text = "The train to London leaves in twenty minutes."
    server = serve(lambda seen: GERMAN[text] if float(seen.body.get("frequency_penalty") or 0) > 0 else "¡" * 12)
    engine = engines(server.url)
    assert engine.translate(TranslationRequest((text,), "en", "de")).texts == (GERMAN[text],)
    first, second = (r.body for r in server.chat_requests()[:2])
    assert first["max_token_run"] == second["max_token_run"] == engine.options.max_token_run > 0
    assert "frequency_penalty" not in first and second["frequency_penalty"] == engine.options.retry_frequency_penalty


def test_two_wrong_answers_end_in_engine_failure_for_the_router(serve, engines) -> None:
    text = "We need to talk about what you said yesterday."
    server = serve(lambda seen: text)  # an echo, every time
    engine = engines(server.url)
    with pytest.raises(EngineFailure, match="repeats the source"):
        engine.translate(TranslationRequest((text,), "en", "de"))
    assert engine.stats()["rejected_echo"] == 2 and len(server.chat_requests()) == 2


def test_a_dropped_token_is_re_asked_once_then_left_to_the_repair_layer(serve, engines) -> None:
    text = "Welcome back, <x0/>! The king wants to see you."
    server = serve(lambda seen: "Willkommen zurück! Der König will dich sehen.")
    engine = engines(server.url)
    result = engine.translate(TranslationRequest((text,), "en", "de"))
    assert result.texts == ("Willkommen zurück! Der König will dich sehen.",)
    assert engine.stats()["rejected_markup"] == 1 and len(server.chat_requests()) == 2


def test_checks_can_be_switched_off(serve, engines) -> None:
    text = "We need to talk about what you said yesterday."
    server = serve(lambda seen: text)
    engine = engines(server.url, output_checks=False)
    assert engine.translate(TranslationRequest((text,), "en", "de")).texts == (text,)


def test_professional_requests_get_a_review_pass_that_can_correct_drafts(serve, engines) -> None:
    texts = tuple(GERMAN)[:2]

    def answer(seen: Seen) -> str:
        if "draft:" in seen.body["messages"][-1]["content"]:
            return json.dumps({"translations": ["Der Zug nach London fährt in zwanzig Minuten.", GERMAN[texts[1]]]})
        return german(seen)

    server = serve(answer)
    engine = engines(server.url)
    hints = TranslationHints(mode="professional", summary="Two friends argue at a station.")
    result = engine.translate(TranslationRequest(texts, "en", "de", hints=hints))
    assert result.texts == ("Der Zug nach London fährt in zwanzig Minuten.", GERMAN[texts[1]])
    first = server.chat_requests()[0].body["messages"][-1]["content"]
    assert "Two friends argue at a station." in first
    assert engine.stats()["reviews"] == 1 and engine.stats()["reviews_changed"] == 1


def test_a_review_that_fails_the_checks_keeps_the_drafts(serve, engines) -> None:
    texts = tuple(GERMAN)[:2]

    def answer(seen: Seen) -> str:
        if "draft:" in seen.body["messages"][-1]["content"]:
            return json.dumps({"translations": list(texts)})  # the reviewer "corrects" back to English
        return german(seen)

    server = serve(answer)
    engine = engines(server.url)
    result = engine.translate(TranslationRequest(texts, "en", "de", hints=TranslationHints(mode="professional")))
    assert result.texts == tuple(GERMAN[t] for t in texts)
    assert engine.stats()["reviews_changed"] == 0


def test_standard_requests_make_no_review_call(serve, engines) -> None:
    server = serve(german)
    engines(server.url).translate(TranslationRequest(tuple(GERMAN)[:2], "en", "de"))
    assert len(server.chat_requests()) == 1


def test_each_batch_sees_its_neighbouring_lines_as_context(serve, engines) -> None:
    lines = [f"Line number {i} of the story goes here." for i in range(6)]
    server = serve(lambda seen: json.dumps({"translations": [f"Zeile {t.split()[2]}." for t in segments_of(seen)]}))
    engine = engines(server.url, batch_size=2, concurrency=1, output_checks=False)
    engine.translate(TranslationRequest(tuple(lines), "en", "de", context=("Earlier.",), following=("Later.",)))
    users = sorted((s.body["messages"][-1]["content"] for s in server.chat_requests()), key=lambda u: u.find("Line number"))
    middle = next(u for u in users if "1. Line number 2" in u)
    assert '- "Line number 1 of the story goes here."' in middle and '- "Line number 4 of the story goes here."' in middle
    first = next(u for u in users if "1. Line number 0" in u)
    assert '- "Earlier."' in first
    last = next(u for u in users if "1. Line number 4" in u)
    assert '- "Later."' in last
