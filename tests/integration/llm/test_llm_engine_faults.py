"""LLM engine against loopback fakes: re-ask, split, retries, error mapping.

These faults cannot be provoked on demand from a real model server, so a
loopback HTTP server scripts them. The engine still talks real HTTP through
httpx, so timeouts, connection errors and headers are genuine.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import httpx
import pytest

from engines.errors import (
    EngineFailure,
    EngineTimeout,
    EngineUnavailable,
    UnsupportedLanguage,
)
from engines.translation.base import TranslationHints, TranslationRequest
from engines.translation.llm.answers import OutputMismatch
from engines.translation.llm.engine import LLMEngine
from tests.integration.llm.llm_fakes import Loopback, Reply, Seen, completion, free_port, models_body, segments_of

MODEL = "stub-model"
Make = Callable[[Callable[[Seen], Reply]], Loopback]


def translating(seen: Seen, max_ok: int = 1000) -> Reply:
    """Answer every batch of at most ``max_ok`` segments correctly, larger ones one short."""
    segments = segments_of(seen)
    out = [f"T<{s}>" for s in segments]
    if len(segments) > max_ok:
        out = out[:-1]
    return Reply(body=completion(json.dumps({"translations": out})))


def stub(make: Make, chat: Callable[[Seen], Reply], models: tuple[str, ...] = (MODEL,)) -> Loopback:
    """A fake OpenAI server: ``/v1/models`` lists ``models``, chat goes to ``chat``."""

    def handle(seen: Seen) -> Reply:
        if seen.path == "/v1/models":
            return Reply(body=models_body(*models))
        return chat(seen)

    return make(handle)


@pytest.fixture
def engines(stub_engines: Callable[..., LLMEngine]) -> Callable[..., LLMEngine]:
    """Factory for started engines with fast retry settings, shut down at teardown."""

    def make(url: str, **options: object) -> LLMEngine:
        # The fakes "translate" by echoing or upper-casing: output checks are covered in test_llm_output_checks.py.
        defaults = {"model": MODEL, "backoff_s": 0.01, "max_retries": 2, "output_checks": False}
        return stub_engines(url, **{**defaults, **options})

    return make


def request(*texts: str, context: tuple[str, ...] = (), hints: TranslationHints | None = None) -> TranslationRequest:
    return TranslationRequest(texts, "en", "es", context=context, hints=hints or TranslationHints())


# -- answers and re-asks ------------------------------------------------------------


def test_good_answer_keeps_order_and_outer_whitespace(loopback: Make, engines) -> None:
    server = stub(loopback, translating)
    engine = engines(server.url, batch_size=8)
    result = engine.translate(request("one", " two\n", "", "three"))
    assert result.texts == ("T<one>", " T<two>\n", "", "T<three>")
    assert result.engine == "llm" and result.route == ("en", "es")
    assert segments_of(server.chat_requests()[0]) == ["one", "two", "three"]


def test_wrong_count_is_reasked_once_with_a_correction(loopback: Make, engines) -> None:
    answers = iter(['{"translations": ["only one"]}', '{"translations": ["A", "B"]}'])
    server = stub(loopback, lambda seen: Reply(body=completion(next(answers))))
    engine = engines(server.url)
    assert engine.translate(request("a", "b")).texts == ("A", "B")
    second = server.chat_requests()[1].body["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert "exactly 2 strings" in second[-1]["content"]
    assert engine.stats()["reasks"] == 1 and engine.stats()["calls"] == 2


def test_persistent_mismatch_splits_the_batch_in_halves(loopback: Make, engines) -> None:
    server = stub(loopback, lambda seen: translating(seen, max_ok=2))
    engine = engines(server.url, batch_size=4)
    assert engine.translate(request("a", "b", "c", "d")).texts == ("T<a>", "T<b>", "T<c>", "T<d>")
    sizes = [len(segments_of(s)) for s in server.chat_requests()]
    assert sizes == [4, 4, 2, 2]
    assert engine.stats()["splits"] == 1 and engine.stats()["reasks"] == 1


def test_unusable_output_ends_in_engine_failure(loopback: Make, engines) -> None:
    # Unusable both as a batch answer (no JSON) and as a single segment's plain answer (empty).
    server = stub(loopback, lambda seen: Reply(body=completion("  \n ")))
    engine = engines(server.url, max_split_depth=1)
    with pytest.raises(EngineFailure) as info:
        engine.translate(request("a", "b"))
    assert isinstance(info.value.__cause__, OutputMismatch)
    # Ask + re-ask for the pair, then for the first half, which fails alone.
    assert [len(segments_of(s)) for s in server.chat_requests()] == [2, 2, 1, 1]
    assert engine.stats()["failures"] >= 1


def test_a_draft_with_a_length_budget_is_rewritten_not_translated_again(loopback: Make, engines) -> None:
    server = stub(loopback, lambda seen: Reply(body=completion('"Salimos a las 9."')))
    engine = engines(server.url)
    hints = TranslationHints(max_length=20, draft="Nosotros vamos a salir a las 9 de la mañana.")
    result = engine.translate(request("We are going to leave at 9 in the morning.", hints=hints))
    assert result.texts == ("Salimos a las 9.",)  # the quotes the model added are dropped
    (asked,) = server.chat_requests()
    prompt = asked.body["messages"][-1]["content"]
    assert "Nosotros vamos a salir a las 9 de la mañana." in prompt and "at most 20 characters" in prompt
    assert "We are going to leave at 9 in the morning." in prompt and engine.stats()["condensed"] == 1


def test_completion_without_choices_is_a_failure(loopback: Make, engines) -> None:
    server = stub(loopback, lambda seen: Reply(body={"object": "chat.completion"}))
    with pytest.raises(EngineFailure, match="choices"):
        engines(server.url).translate(request("a"))


# -- prompt content on the wire ---------------------------------------------------------


def test_context_hints_and_api_key_reach_the_server(loopback: Make, engines) -> None:
    server = stub(loopback, translating)
    engine = engines(server.url, api_key="sekret", temperature=0.0, max_tokens=40)
    hints = TranslationHints(tone="humorous", formality="informal", max_length=30)
    engine.translate(request("Go <x0/>!", context=("Earlier line",), hints=hints))
    seen = server.chat_requests()[0]
    system, user = (m["content"] for m in seen.body["messages"])
    assert seen.headers.get("Authorization") == "Bearer sekret"
    assert seen.body["model"] == MODEL and seen.body["max_tokens"] == 40
    assert "humorous" in user and "informal" in user and "30 characters" in user
    assert "<x0/>" in system
    assert 'Context before (do not translate):\n- "Earlier line"' in user
    assert user.splitlines()[-1].startswith("Translate the text from English into Spanish.")
    assert segments_of(seen) == ["Go <x0/>!"]


def test_structured_output_sends_a_schema_with_the_count(loopback: Make, engines) -> None:
    server = stub(loopback, translating)
    engines(server.url, structured_output="json_schema").translate(request("a", "b"))
    fmt = server.chat_requests()[0].body["response_format"]
    assert fmt["json_schema"]["schema"]["properties"]["translations"]["maxItems"] == 2


def test_unknown_structured_output_is_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="structured_output"):
        LLMEngine(structured_output="xml")


def test_batches_are_cut_by_batch_size(loopback: Make, engines) -> None:
    server = stub(loopback, translating)
    engine = engines(server.url, batch_size=3, concurrency=2)
    texts = tuple(f"s{i}" for i in range(8))
    assert engine.translate(request(*texts)).texts == tuple(f"T<{t}>" for t in texts)
    assert sorted(len(segments_of(s)) for s in server.chat_requests()) == [2, 3, 3]
    assert engine.stats()["batches"] == 3


def test_a_failing_batch_stops_its_siblings_before_translate_returns(loopback: Make, engines) -> None:
    def chat(seen: Seen) -> Reply:
        if "bad" in segments_of(seen) or seen.body["messages"][-1]["role"] == "assistant":
            return Reply(body=completion(" "), delay_s=0.1)  # unusable as JSON and as a plain answer
        return Reply(body=completion(json.dumps({"translations": ["ok"]})), delay_s=0.1)

    server = stub(loopback, chat)
    engine = engines(server.url, batch_size=1, concurrency=2)
    with pytest.raises(EngineFailure) as info:
        engine.translate(request("bad", *(f"s{i}" for i in range(8))))
    assert isinstance(info.value.__cause__, OutputMismatch)
    asked = len(server.chat_requests())
    time.sleep(0.4)
    assert len(server.chat_requests()) == asked < 1 + 9
    assert engine.stats()["calls"] == asked


def test_empty_request_makes_no_call(loopback: Make, engines) -> None:
    server = stub(loopback, translating)
    assert engines(server.url).translate(request("", "  ")).texts == ("", "  ")
    assert server.chat_requests() == []


def test_unknown_pair_is_rejected_before_any_call(loopback: Make, engines) -> None:
    server = stub(loopback, translating)
    engine = engines(server.url, languages=["en", "es"])
    with pytest.raises(UnsupportedLanguage) as info:
        engine.translate(TranslationRequest(texts=("a",), source_lang="en", target_lang="de"))
    assert info.value.target == "de"
    assert server.chat_requests() == []


# -- retries and error mapping -----------------------------------------------------------


def failing_then(statuses: list[Reply], then: Callable[[Seen], Reply]) -> Callable[[Seen], Reply]:
    """Answer the given error replies first, then delegate."""
    pending = list(statuses)
    return lambda seen: pending.pop(0) if pending else then(seen)


def test_503_and_429_are_retried_honouring_retry_after(loopback: Make, engines) -> None:
    errors = [Reply(503, {"error": "loading"}), Reply(429, {"error": "busy"}, {"Retry-After": "1"})]
    server = stub(loopback, failing_then(errors, translating))
    engine = engines(server.url, backoff_s=0.0, max_retries=3)
    started = time.monotonic()
    assert engine.translate(request("a")).texts == ("T<a>",)
    assert time.monotonic() - started >= 1.0
    assert len(server.chat_requests()) == 3 and engine.stats()["retries"] == 2


def test_retries_exhausted_is_unavailable_with_the_http_cause(loopback: Make, engines) -> None:
    server = stub(loopback, lambda seen: Reply(503, {"error": "down"}, {"Retry-After": "0"}))
    engine = engines(server.url, max_retries=2)
    with pytest.raises(EngineUnavailable) as info:
        engine.translate(request("a"))
    assert not isinstance(info.value, EngineTimeout)
    assert isinstance(info.value.__cause__, httpx.HTTPStatusError)
    assert len(server.chat_requests()) == 3


def test_other_4xx_fails_without_retry(loopback: Make, engines) -> None:
    server = stub(loopback, lambda seen: Reply(400, {"error": "context length exceeded"}))
    with pytest.raises(EngineFailure, match="HTTP 400") as info:
        engines(server.url).translate(request("a"))
    assert isinstance(info.value.__cause__, httpx.HTTPStatusError)
    assert len(server.chat_requests()) == 1


def test_slow_answer_is_a_timeout_and_not_retried(loopback: Make, engines) -> None:
    server = stub(loopback, lambda seen: Reply(body=completion('["x"]'), delay_s=1.5))
    engine = engines(server.url, timeout_s=0.3)
    with pytest.raises(EngineTimeout) as info:
        engine.translate(request("a"))
    assert isinstance(info.value.__cause__, httpx.TimeoutException)
    assert len(server.chat_requests()) == 1 and engine.stats()["timeouts"] == 1


def test_server_gone_after_start_is_unavailable(loopback: Make, engines) -> None:
    server = stub(loopback, translating)
    engine = engines(server.url, max_retries=1)
    server.close()
    with pytest.raises(EngineUnavailable) as info:
        engine.translate(request("a"))
    assert isinstance(info.value.__cause__, httpx.TransportError)
    assert engine.stats()["retries"] == 1 and engine.stats()["unavailable"] == 1
    with pytest.raises(EngineUnavailable):
        engine.health()


# -- start ------------------------------------------------------------------------------


def test_start_on_a_closed_port_is_unavailable() -> None:
    engine = LLMEngine(base_url=f"http://127.0.0.1:{free_port()}/v1", model=MODEL)
    with pytest.raises(EngineUnavailable) as info:
        engine.start()
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    with pytest.raises(EngineUnavailable):
        engine.translate(request("a"))


def test_start_requires_the_model_to_be_listed(loopback: Make) -> None:
    server = stub(loopback, translating, models=("other",))
    with pytest.raises(EngineUnavailable, match="stub-model"):
        LLMEngine(base_url=server.url, model=MODEL).start()


def test_start_without_model_adopts_the_first_listed(loopback: Make, engines) -> None:
    server = stub(loopback, translating, models=("first", "second"))
    assert engines(server.url, model=None).describe()["model"] == "first"
