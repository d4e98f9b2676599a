"""LLM engine against a real OpenAI-compatible server (the embedded llama.cpp server + SmolLM2-135M).

Translation quality is irrelevant with a 135M model; what matters is the
protocol: model discovery, one string per segment in order (or a clean
``EngineFailure``, never a wrong count), batching, retries and timeouts
over real HTTP against a real ``/v1`` implementation.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator

import pytest

from engines.errors import EngineFailure, EngineTimeout, EngineUnavailable
from engines.translation.base import TranslationRequest
from engines.translation.llm.engine import LLMEngine
from tests.integration.llm.llm_fakes import Loopback, Reply, Seen, forward_to, segments_of

pytestmark = pytest.mark.llm

#: Enough for a few short segments as JSON; small because the CPU server
#: generates a few dozen tokens per second and ignores stop sequences.
MAX_TOKENS = 32
Make = Callable[[Callable[[Seen], Reply]], Loopback]


def engine_for(url: str, model: str, **options: object) -> LLMEngine:
    defaults = {
        "base_url": url,
        "model": model,
        "max_tokens": MAX_TOKENS,
        "concurrency": 1,
        "max_split_depth": 0,
    }
    engine = LLMEngine(**{**defaults, **options})
    engine.start()
    return engine


@pytest.fixture
def started(llm_server) -> Iterator[Callable[..., LLMEngine]]:
    """Engines against the real server (or a proxy in front of it), shut down at teardown."""
    engines: list[LLMEngine] = []

    def make(url: str | None = None, **options: object) -> LLMEngine:
        engines.append(engine_for(url or llm_server.base_url, llm_server.model, **options))
        return engines[-1]

    yield make
    for engine in engines:
        engine.shutdown()


def request(*texts: str) -> TranslationRequest:
    return TranslationRequest(texts=texts, source_lang="en", target_lang="es")


def test_start_finds_the_model_and_health_follows_the_server(llm_server, started) -> None:
    engine = started(f"{llm_server.base_url}/v1/")
    engine.health()
    assert engine.describe()["model"] == llm_server.model
    engine.shutdown()
    with pytest.raises(EngineUnavailable):
        engine.health()


def test_start_rejects_a_model_the_server_does_not_list(llm_server) -> None:
    with pytest.raises(EngineUnavailable, match="no-such-model"):
        engine_for(llm_server.base_url, "no-such-model")


def test_batch_gives_one_string_per_segment_or_a_clean_failure(started) -> None:
    engine = started(batch_size=8)
    texts = ("Hello.", "Good night.", "Where is the station?")
    try:
        result = engine.translate(request(*texts))
    except EngineFailure:
        assert engine.stats()["failures"] == 1
        return
    assert len(result.texts) == len(texts)
    assert all(isinstance(t, str) and t for t in result.texts)
    assert engine.stats()["calls"] == 1 + engine.stats()["reasks"]


def test_more_segments_than_batch_size_makes_one_call_per_batch(llm_server, started, loopback: Make) -> None:
    proxy = loopback(forward_to(llm_server.base_url))
    # All batches in flight at once, so each is asked even if another fails first.
    engine = started(proxy.url, batch_size=2, concurrency=2, max_tokens=24)
    texts = ("One.", "Two.", "Three.")
    with contextlib.suppress(EngineFailure):
        assert len(engine.translate(request(*texts)).texts) == len(texts)
    first_turns = [segments_of(s) for s in proxy.chat_requests() if len(s.body["messages"]) == 2]
    assert len(first_turns) == math.ceil(len(texts) / 2) == engine.stats()["batches"]
    assert sorted(first_turns) == [["One.", "Two."], ["Three."]]
    assert len(proxy.chat_requests()) == engine.stats()["calls"]


def test_transient_503_and_429_are_retried_before_reaching_the_model(llm_server, started, loopback: Make) -> None:
    errors = [
        Reply(503, {"error": "warming up"}),
        Reply(429, {"error": "busy"}, {"Retry-After": "1"}),
    ]
    relay = forward_to(llm_server.base_url)

    def flaky(seen: Seen) -> Reply:
        if seen.path.endswith("/chat/completions") and errors:
            return errors.pop(0)
        return relay(seen)

    proxy = loopback(flaky)
    engine = started(proxy.url, backoff_s=0.0, max_retries=3, max_tokens=16)
    began = time.monotonic()
    with contextlib.suppress(EngineFailure):
        assert len(engine.translate(request("Thank you.")).texts) == 1
    assert time.monotonic() - began >= 1.0
    assert engine.stats()["retries"] == 2
    assert engine.stats()["calls"] >= 1
    assert len(proxy.chat_requests()) == 2 + engine.stats()["calls"]


def test_a_deadline_shorter_than_generation_is_a_timeout(llm_server, started) -> None:
    engine = started(timeout_s=0.2, max_tokens=16, max_retries=3)
    try:
        with pytest.raises(EngineTimeout):
            engine.translate(request("A sentence long enough to need some generation time."))
        assert engine.stats()["timeouts"] == 1 and engine.stats()["retries"] == 0
    finally:
        llm_server.wait_idle()
