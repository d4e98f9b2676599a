"""The local OpenAI-compatible server (``deployments.llm_server``) over real HTTP.

SmolLM2-135M on CPU cannot translate, so these tests check the protocol the
translator relies on: the OpenAI response and error shapes, token limits,
grammar-constrained JSON, stop strings, prefix reuse, continuous batching
under concurrent callers, determinism of greedy decoding and server-sent
events. Completions are kept to a few dozen tokens so the file stays fast
on two CPU cores.

Two servers answer. The session's shared one (``llm_server``) has served
every other LLM test, concurrent ones included, so its KV cache is
fragmented; llama.cpp's greedy answer for the same tokens can then differ
by a token (when a sequence's newer cells sit before its older ones, the
same tokens give logits up to ~0.8 apart; see ``start_llm_server``). Tests that
compare two greedy answers token for token therefore use ``quiet``, a
server of this module's own that only ever sees one request at a time,
or a brand-new server for the concurrent pair.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.llm

#: Generous: the CPU may be shared with other work while a test runs.
TIMEOUT_S = 120.0

TWO_STRINGS_SCHEMA = {
    "type": "object",
    "properties": {
        "items": {"type": "array", "items": {"type": "string", "maxLength": 24}, "minItems": 2, "maxItems": 2},
    },
    "required": ["items"],
    "additionalProperties": False,
}


@pytest.fixture
def api(llm_server) -> Iterator[httpx.Client]:
    """A fresh client per test, so no test inherits another's closed keep-alive connection."""
    with llm_server.client(TIMEOUT_S) as http:
        yield http


@pytest.fixture(scope="module")
def quiet(start_llm_server):
    """This module's own server: sequential requests only, so its cache is never fragmented."""
    return start_llm_server()


@pytest.fixture
def quiet_api(quiet) -> Iterator[httpx.Client]:
    with quiet.client(TIMEOUT_S) as http:
        yield http


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def post(api: httpx.Client, **body: Any) -> httpx.Response:
    return api.post("/v1/chat/completions", json=body)


def ask(api: httpx.Client, model: str, text: str, **options: Any) -> dict[str, Any]:
    """A greedy completion of one user turn; asserts HTTP 200 and returns the body."""
    body = {"model": model, "messages": user(text), "temperature": 0, "max_tokens": 16, **options}
    response = post(api, **body)
    assert response.status_code == 200, response.text
    return response.json()


def content(completion: dict[str, Any]) -> str:
    return completion["choices"][0]["message"]["content"]


def assert_openai_error(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert isinstance(error, dict)
    assert {"message", "type", "param", "code"} <= set(error)
    assert isinstance(error["message"], str) and error["message"]
    assert error["type"] == "invalid_request_error"
    if code is not None:
        assert error["code"] == code
    return error


# -- discovery and the completion shape ------------------------------------------------


def test_models_lists_the_served_id(api: httpx.Client, llm_server) -> None:
    response = api.get("/v1/models")
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "list"
    assert [m["id"] for m in body["data"]] == [llm_server.model] == ["smollm2"]
    assert body["data"][0]["object"] == "model"


def test_plain_completion_has_the_openai_shape_and_usage(api: httpx.Client, llm_server) -> None:
    body = ask(api, llm_server.model, "Say hello to the world.", max_tokens=12)
    assert body["object"] == "chat.completion"
    assert body["id"].startswith("chatcmpl-")
    assert body["model"] == llm_server.model
    assert isinstance(body["created"], int)
    (choice,) = body["choices"]
    assert choice["index"] == 0
    assert choice["message"]["role"] == "assistant"
    assert isinstance(choice["message"]["content"], str) and choice["message"]["content"].strip()
    assert choice["finish_reason"] in ("stop", "length")
    usage = body["usage"]
    assert usage["prompt_tokens"] > 0
    assert 1 <= usage["completion_tokens"] <= 12
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert 0 <= usage["prompt_tokens_details"]["cached_tokens"] < usage["prompt_tokens"]


def test_model_may_be_omitted(api: httpx.Client) -> None:
    response = post(api, messages=user("Hi"), max_tokens=2, temperature=0)
    assert response.status_code == 200, response.text
    assert response.json()["model"] == "smollm2"


@pytest.mark.parametrize("limit", ["max_tokens", "max_completion_tokens"])
def test_a_small_token_limit_ends_with_length(api: httpx.Client, llm_server, limit: str) -> None:
    body = {"model": llm_server.model, "messages": user("Write a long story about a dragon."), "temperature": 0, limit: 3}
    response = post(api, **body)
    assert response.status_code == 200, response.text
    completion = response.json()
    assert completion["choices"][0]["finish_reason"] == "length"
    assert 1 <= completion["usage"]["completion_tokens"] <= 3


def test_ignore_eos_generates_exactly_the_budget(api: httpx.Client, llm_server) -> None:
    """vLLM's ``ignore_eos``: a reply that would end after a word runs to max_tokens (fixed-length benchmarks).

    Whether the model alone stops early differs between CPUs, so only the guarantee is asserted.
    """
    body = {"model": llm_server.model, "messages": user("Say only: yes"), "temperature": 0, "max_tokens": 24}
    long = post(api, **body, ignore_eos=True).json()
    assert long["usage"]["completion_tokens"] == 24 and long["choices"][0]["finish_reason"] == "length"


def test_max_token_run_ends_a_loop_that_a_negative_penalty_makes(api: httpx.Client, llm_server) -> None:
    """A negative frequency penalty rewards each reuse of a token, so greedy decoding soon says one phrase over
    and over; ``max_token_run`` ends such a loop early instead of at the budget."""
    body = {"model": llm_server.model, "messages": user("Count to ten."), "temperature": 0, "max_tokens": 96}
    body |= {"ignore_eos": True, "frequency_penalty": -2.0, "presence_penalty": -2.0}
    looping = post(api, **body).json()
    assert looping["usage"]["completion_tokens"] == 96
    cut = post(api, **body, max_token_run=36).json()
    assert cut["choices"][0]["finish_reason"] == "length"
    assert 36 <= cut["usage"]["completion_tokens"] < 96


@pytest.mark.parametrize("field", ["frequency_penalty", "presence_penalty"])
def test_a_penalty_outside_openais_range_is_refused(api: httpx.Client, llm_server, field: str) -> None:
    assert_openai_error(post(api, model=llm_server.model, messages=user("Hi"), **{field: 2.5}), 400)


# -- structured output -----------------------------------------------------------------------


def test_json_schema_output_parses_and_matches_the_schema(quiet_api: httpx.Client, quiet) -> None:
    response_format = {"type": "json_schema", "json_schema": {"name": "two_colors", "schema": TWO_STRINGS_SCHEMA}}
    completion = ask(quiet_api, quiet.model, "Name two colors.", max_tokens=64, response_format=response_format)
    assert completion["choices"][0]["finish_reason"] == "stop", completion
    data = json.loads(content(completion))
    assert isinstance(data, dict) and set(data) == {"items"}
    assert isinstance(data["items"], list) and len(data["items"]) == 2
    assert all(isinstance(item, str) and len(item) <= 24 for item in data["items"])


def test_json_object_output_is_a_json_object(quiet_api: httpx.Client, quiet) -> None:
    prompt = 'Reply with a JSON object whose key "name" is "Tom".'
    completion = ask(quiet_api, quiet.model, prompt, max_tokens=96, response_format={"type": "json_object"})
    assert completion["choices"][0]["finish_reason"] == "stop", completion
    assert isinstance(json.loads(content(completion)), dict)


def test_text_response_format_is_free_text(quiet_api: httpx.Client, quiet) -> None:
    plain = ask(quiet_api, quiet.model, "Say hello.", max_tokens=8)
    text = ask(quiet_api, quiet.model, "Say hello.", max_tokens=8, response_format={"type": "text"})
    assert content(text) == content(plain)


# -- stop, prefix reuse, determinism ---------------------------------------------------------


def test_stop_cuts_the_text_before_the_stop_string(quiet_api: httpx.Client, quiet) -> None:
    prompt = "Write a short poem about the sea."
    full = content(ask(quiet_api, quiet.model, prompt, max_tokens=24))
    words = [w for w in full.split() if len(w) >= 3]
    assert len(words) >= 3, full
    stop = words[len(words) // 2]
    cut = ask(quiet_api, quiet.model, prompt, max_tokens=24, stop=[stop])
    assert cut["choices"][0]["finish_reason"] == "stop"
    assert content(cut) == full[: full.index(stop)]
    assert stop not in content(cut)
    single = ask(quiet_api, quiet.model, prompt, max_tokens=24, stop=stop)  # a bare string works too
    assert content(single) == content(cut)


def test_repeating_a_prompt_reuses_its_cached_prefix(api: httpx.Client, llm_server) -> None:
    prompt = f"Request {uuid.uuid4().hex}: describe a red apple in one sentence."
    first = ask(api, llm_server.model, prompt, max_tokens=4)["usage"]
    second = ask(api, llm_server.model, prompt, max_tokens=4)["usage"]
    assert second["prompt_tokens"] == first["prompt_tokens"]
    assert second["prompt_tokens_details"]["cached_tokens"] > 0
    assert second["prompt_tokens_details"]["cached_tokens"] > first["prompt_tokens_details"]["cached_tokens"]
    # Everything but the last prompt token (which must be decoded for its logits).
    assert second["prompt_tokens_details"]["cached_tokens"] >= second["prompt_tokens"] - 1


def test_greedy_decoding_is_deterministic_across_calls(quiet_api: httpx.Client, quiet) -> None:
    prompt = "List three fruits."
    answers = {content(ask(quiet_api, quiet.model, prompt, max_tokens=16)) for _ in range(3)}
    assert len(answers) == 1 and next(iter(answers)).strip()


def test_sampling_with_the_same_seed_is_reproducible(quiet_api: httpx.Client, quiet) -> None:
    prompt = "Invent a name for a cat."
    options = {"temperature": 1.0, "seed": 1234, "max_tokens": 12}
    first = content(ask(quiet_api, quiet.model, prompt, **options))
    second = content(ask(quiet_api, quiet.model, prompt, **options))
    assert first == second


def run_concurrently(server, prompts: list[str], max_tokens: int) -> list[dict[str, Any]]:
    """One greedy request per prompt, all in flight at once, each on its own connection."""

    def one(prompt: str) -> dict[str, Any]:
        with server.client(TIMEOUT_S) as http:
            return ask(http, server.model, prompt, max_tokens=max_tokens)

    with ThreadPoolExecutor(max_workers=len(prompts)) as pool:
        return list(pool.map(one, prompts))


def test_six_concurrent_requests_all_complete_with_valid_answers(llm_server) -> None:
    # Prompts of different lengths, so each answer's usage shows it came back to its own request.
    prompts = [
        "Hi.",
        "Name a color.",
        "Count to five, please.",
        "List three fruits that are red.",
        "Name an animal that lives in the sea and eats fish.",
        "Say goodbye to a friend who is leaving for a long journey abroad.",
    ]
    results = run_concurrently(llm_server, prompts, max_tokens=12)
    with llm_server.client(TIMEOUT_S) as http:
        alone = [ask(http, llm_server.model, p, max_tokens=1)["usage"]["prompt_tokens"] for p in prompts]
    assert len(set(alone)) == len(prompts)
    for completion, prompt_tokens in zip(results, alone):
        assert completion["object"] == "chat.completion"
        assert completion["choices"][0]["finish_reason"] in ("stop", "length")
        assert completion["usage"]["prompt_tokens"] == prompt_tokens
        assert 1 <= completion["usage"]["completion_tokens"] <= 12
        assert content(completion).strip()
    assert len({c["id"] for c in results}) == len(prompts)


def test_identical_concurrent_greedy_prompts_agree_with_each_other_and_alone(start_llm_server) -> None:
    """Two slots decoding the same prompt together (one copies the other's prefix) answer like one alone."""
    server = start_llm_server()  # an empty cache: see the module docstring
    prompt = "Name a color."
    pair = run_concurrently(server, [prompt, prompt], max_tokens=12)
    with server.client(TIMEOUT_S) as http:
        alone = ask(http, server.model, prompt, max_tokens=12)
    assert content(pair[0]) == content(pair[1]) == content(alone)
    assert pair[0]["usage"]["completion_tokens"] == pair[1]["usage"]["completion_tokens"]


# -- the service key and the max_tokens ceiling ------------------------------------------


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer not-the-key"}])
def test_the_server_refuses_callers_without_the_service_key(llm_server, headers: dict[str, str]) -> None:
    with httpx.Client(base_url=llm_server.base_url, timeout=TIMEOUT_S, headers=headers) as stranger:
        for response in (stranger.get("/v1/models"), post(stranger, messages=user("Hi"), max_tokens=1)):
            assert response.status_code == 401, response.text
            assert response.json()["error"]["code"] == "invalid_api_key"


def test_a_max_tokens_over_the_ceiling_is_refused(api: httpx.Client, llm_server) -> None:
    response = post(api, model=llm_server.model, messages=user("Hi"), max_tokens=2049)
    error = assert_openai_error(response, 400, "invalid_value")
    assert error["param"] == "max_tokens" and "2048" in error["message"]


# -- errors --------------------------------------------------------------------------------------


def test_empty_messages_is_an_invalid_request(api: httpx.Client, llm_server) -> None:
    assert_openai_error(post(api, model=llm_server.model, messages=[]), 400)


def test_unknown_model_is_not_found(api: httpx.Client) -> None:
    assert_openai_error(post(api, model="no-such-model", messages=user("Hi")), 404, "model_not_found")


def test_more_than_one_choice_is_refused(api: httpx.Client, llm_server) -> None:
    assert_openai_error(post(api, model=llm_server.model, messages=user("Hi"), n=2), 400)


def test_unknown_response_format_type_is_refused(api: httpx.Client, llm_server) -> None:
    response = post(api, model=llm_server.model, messages=user("Hi"), response_format={"type": "xml"})
    assert "xml" in assert_openai_error(response, 400)["message"]


def test_json_schema_without_a_schema_is_refused(api: httpx.Client, llm_server) -> None:
    response_format = {"type": "json_schema", "json_schema": {"name": "nothing"}}
    assert_openai_error(post(api, model=llm_server.model, messages=user("Hi"), response_format=response_format), 400)


def test_malformed_json_body_is_refused(api: httpx.Client) -> None:
    response = api.post("/v1/chat/completions", content=b"{not json", headers={"content-type": "application/json"})
    assert_openai_error(response, 400)


def test_a_non_text_content_part_is_refused(api: httpx.Client, llm_server) -> None:
    messages = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x/y.png"}}]}]
    assert_openai_error(post(api, model=llm_server.model, messages=messages), 400)


def test_a_prompt_longer_than_the_request_context_is_refused(api: httpx.Client, llm_server) -> None:
    # Two slots share 4096 cells: a request may use 2048 tokens.
    response = post(api, model=llm_server.model, messages=user("word " * 3000), max_tokens=2)
    assert_openai_error(response, 400, "context_length_exceeded")
    # The server is still serving afterwards.
    assert ask(api, llm_server.model, "Hi", max_tokens=2)["usage"]["completion_tokens"] >= 1


def test_a_schema_the_converter_cannot_handle_is_an_invalid_request(api: httpx.Client, llm_server) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "no-such-type"}}}
    response_format = {"type": "json_schema", "json_schema": {"name": "bad", "schema": schema}}
    response = post(api, model=llm_server.model, messages=user("Hi"), response_format=response_format)
    assert_openai_error(response, 400)


# -- streaming and content parts -------------------------------------------------------------


def sse_events(response: httpx.Response) -> list[str]:
    """The ``data:`` payloads of a server-sent event stream, in order."""
    return [line[len("data:") :].strip() for line in response.iter_lines() if line.startswith("data:")]


def test_stream_sends_chunks_that_add_up_to_the_plain_answer(quiet_api: httpx.Client, quiet) -> None:
    body = {"model": quiet.model, "messages": user("Tell me about the moon."), "temperature": 0, "max_tokens": 16}
    plain = post(quiet_api, **body).json()
    with quiet_api.stream("POST", "/v1/chat/completions", json={**body, "stream": True}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks and all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1 and chunks[0]["id"].startswith("chatcmpl-")
    choices = [choice for c in chunks for choice in c["choices"]]
    assert choices[0]["delta"].get("role") == "assistant"
    text = "".join(choice["delta"].get("content") or "" for choice in choices)
    assert text == content(plain)
    finishes = [choice["finish_reason"] for choice in choices if choice["finish_reason"] is not None]
    assert finishes == [plain["choices"][0]["finish_reason"]]
    usage = [c["usage"] for c in chunks if c.get("usage")]
    assert usage and usage[-1]["completion_tokens"] == plain["usage"]["completion_tokens"]


def test_content_as_a_list_of_text_parts_is_the_same_as_a_string(quiet_api: httpx.Client, quiet) -> None:
    parts = [{"type": "text", "text": "Say hello "}, {"type": "text", "text": "to the world."}]
    messages = [{"role": "user", "content": parts}]
    response = post(quiet_api, model=quiet.model, messages=messages, temperature=0, max_tokens=8)
    assert response.status_code == 200, response.text
    as_parts = response.json()
    as_string = ask(quiet_api, quiet.model, "Say hello to the world.", max_tokens=8)
    assert as_parts["usage"]["prompt_tokens"] == as_string["usage"]["prompt_tokens"]
    assert content(as_parts) == content(as_string)


def test_system_and_developer_messages_are_accepted(api: httpx.Client, llm_server) -> None:
    for role in ("system", "developer"):
        messages = [{"role": role, "content": "You answer in one word."}, *user("Name a color.")]
        response = post(api, model=llm_server.model, messages=messages, temperature=0, max_tokens=4)
        assert response.status_code == 200, (role, response.text)
