"""The embedded LLM server's HTTP surface is internal: service key, ``max_tokens`` ceiling, clean error bodies.

The real app (``create_openai_app``) answers over Starlette's TestClient.
The model behind it is a stand-in that records what reaches it: the key
check, the ceiling and the error shapes are what is under test, and a
refused request must never reach the model.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from deployments.llm_server import LLMServerArgs
from engines.llm.completion import ContextFull, Generated
from engines.llm.openai_api import create_openai_app
from engines.llm.service_key import ENV_VAR, configured_key, presented_key

KEY = "k3y-for-tests-0123456789abcdef"
CHAT = {"messages": [{"role": "user", "content": "Hola"}]}

#: What no error body may carry: Ray task frames, tracebacks, paths, process ids, colour codes, echoed input.
INTERNALS = re.compile(r"ray::|Traceback|File \"|site-packages|pid=|actor_id|\x1b\[|/work/|input_value|errors\.pydantic")


class StandInModel:
    """Answers every completion with fixed text; ``fail`` makes it raise instead."""

    model_id = "translator-llm"

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.waiting = 0
        self.fail: BaseException | None = None

    async def complete(self, messages: list[dict[str, Any]], **options: Any) -> Generated:
        self.calls.append({"messages": messages, **options})
        if self.fail is not None:
            raise self.fail
        return Generated("Hello", prompt_tokens=5, completion_tokens=1, cached_tokens=0, finish_reason="stop", seconds=0.0)

    def load(self) -> dict[str, int]:
        return {"running": 0, "waiting": self.waiting, "slots": 2}


@pytest.fixture
def model() -> StandInModel:
    return StandInModel()


def client_for(model: StandInModel, key: str | None, **options: Any) -> TestClient:
    return TestClient(create_openai_app(model, api_key=key, **options), raise_server_exceptions=False)


@pytest.fixture
def api(model: StandInModel) -> Iterator[TestClient]:
    with client_for(model, KEY, max_tokens_limit=512, max_waiting=4) as client:
        client.headers["Authorization"] = f"Bearer {KEY}"
        yield client


def assert_openai_error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["message"] and "\n" not in error["message"] and len(error["message"]) <= 300
    assert not INTERNALS.search(response.text), response.text
    return error


# --------------------------------------------------------------------- the service key


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/models"), ("POST", "/v1/chat/completions"), ("GET", "/v1/nothing-here"), ("GET", "/docs")],
)
@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer wrong", f"Bearer {KEY[:-1]}", f"Bearer {KEY}x", f"Basic {KEY}", KEY],
)
def test_every_path_refuses_a_missing_or_wrong_key(
    model: StandInModel, method: str, path: str, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    with client_for(model, KEY) as client:
        response = client.request(method, path, json=CHAT, headers=headers)
    error = assert_openai_error(response, 401)
    assert error["code"] == "invalid_api_key"
    assert response.headers["www-authenticate"] == "Bearer"
    assert model.calls == [], "a refused request reached the model"


def test_the_right_key_is_served(api: TestClient, model: StandInModel) -> None:
    assert api.get("/v1/models").json()["data"][0]["id"] == "translator-llm"
    response = api.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == "Hello"
    assert len(model.calls) == 1


def test_the_scheme_is_case_insensitive(model: StandInModel) -> None:
    with client_for(model, KEY) as client:
        assert client.get("/v1/models", headers={"Authorization": f"bearer {KEY}"}).status_code == 200


def test_a_server_without_a_key_refuses_everything_and_says_so_once(
    model: StandInModel, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    with client_for(model, None) as client:
        warned = [r for r in caplog.records if ENV_VAR in r.getMessage()]
        assert len(warned) == 1 and warned[0].levelno == logging.WARNING, "warn when the server starts"
        for authorization in ("Bearer ", "Bearer None", "Bearer null", f"Bearer {KEY}"):
            assert_openai_error(client.get("/v1/models", headers={"Authorization": authorization}), 401)
    assert model.calls == []
    assert [r for r in caplog.records if ENV_VAR in r.getMessage()] == warned, "one warning, not one per request"


def test_the_key_comes_from_the_environment_unless_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "  from-env \n")
    assert configured_key() == "from-env"
    assert configured_key("explicit") == "explicit"
    assert configured_key("") is None, "an explicit empty key must not fall back to the environment"
    monkeypatch.setenv(ENV_VAR, "   ")
    assert configured_key() is None


def test_only_a_bearer_token_is_a_presented_key() -> None:
    def scope(*values: bytes) -> dict[str, Any]:
        return {"headers": [(b"authorization", v) for v in values]}

    assert presented_key(scope(b"Bearer abc")) == b"abc"
    assert presented_key(scope(b"BEARER   abc  ")) == b"abc"
    assert presented_key(scope(b"Basic abc")) is None
    assert presented_key(scope(b"Bearer ")) is None
    assert presented_key({"headers": []}) is None


# --------------------------------------------------------------------- the max_tokens ceiling


@pytest.mark.parametrize("field", ["max_tokens", "max_completion_tokens"])
def test_a_budget_over_the_ceiling_is_refused_before_the_model(api: TestClient, model: StandInModel, field: str) -> None:
    error = assert_openai_error(api.post("/v1/chat/completions", json={**CHAT, field: 513}), 400)
    assert error["param"] == field and error["code"] == "invalid_value"
    assert "512" in error["message"]
    assert model.calls == []


def test_a_budget_at_the_ceiling_is_served(api: TestClient, model: StandInModel) -> None:
    assert api.post("/v1/chat/completions", json={**CHAT, "max_tokens": 512}).status_code == 200
    assert model.calls[0]["max_tokens"] == 512


def test_a_huge_budget_is_refused(api: TestClient, model: StandInModel) -> None:
    assert_openai_error(api.post("/v1/chat/completions", json={**CHAT, "max_tokens": 10**12}), 400)
    assert model.calls == []


def test_server_args_keep_the_default_within_the_ceiling(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="max_tokens_limit"):
        LLMServerArgs(max_tokens=4096, max_tokens_limit=2048)
    monkeypatch.setenv(ENV_VAR, "env-key")
    args = LLMServerArgs()
    assert args.service_key() == "env-key"
    assert LLMServerArgs(api_key="given").service_key() == "given"
    assert "given" not in repr(LLMServerArgs(api_key="given")), "the key must not show in logs"
    assert "api_key" not in vars(args.chat_config())


# --------------------------------------------------------------------- error bodies


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"{not json", 400),
        (b"", 400),
        (b'{"messages": []}', 400),
        (b'{"messages": [{"role": "robot", "content": "x"}]}', 400),
        (b'{"messages": [{"role": "user", "content": "x"}], "temperature": 9}', 400),
        (b'{"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}', 400),
        (b'{"messages": [{"role": "user", "content": "x"}], "model": "other"}', 404),
    ],
)
def test_invalid_requests_answer_one_clean_line(api: TestClient, model: StandInModel, body: bytes, status: int) -> None:
    response = api.post("/v1/chat/completions", content=body, headers={"content-type": "application/json"})
    assert_openai_error(response, status)
    assert model.calls == []


def test_unknown_paths_and_methods_answer_in_openai_shape(api: TestClient) -> None:
    assert_openai_error(api.get("/v1/completions"), 404)
    response = api.get("/v1/chat/completions")
    assert_openai_error(response, 405)
    assert "POST" in response.headers["allow"]


def test_overload_answers_429_with_retry_after(api: TestClient, model: StandInModel) -> None:
    model.waiting = 4
    response = api.post("/v1/chat/completions", json=CHAT)
    assert assert_openai_error(response, 429)["type"] == "rate_limit_error"
    assert response.headers["retry-after"] == "1"


def test_a_fault_in_the_model_answers_500_without_its_insides(
    api: TestClient, model: StandInModel, caplog: pytest.LogCaptureFixture
) -> None:
    model.fail = RuntimeError('ray::LLMServer.complete() (pid=4242, ip=10.0.0.1)\n  File "/work/x.py", line 1')
    error = assert_openai_error(api.post("/v1/chat/completions", json=CHAT), 500)
    assert error["type"] == "server_error"
    assert any("pid=4242" in r.getMessage() or (r.exc_info and "pid=4242" in str(r.exc_info[1])) for r in caplog.records)


def test_a_prompt_over_the_context_is_a_clean_400(api: TestClient, model: StandInModel) -> None:
    model.fail = ContextFull("prompt of 9000 tokens exceeds the 2048-token context")
    error = assert_openai_error(api.post("/v1/chat/completions", json=CHAT), 400)
    assert error["code"] == "context_length_exceeded"
