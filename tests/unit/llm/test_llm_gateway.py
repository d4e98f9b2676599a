"""The GPU profile's LLM application is internal: configs/gpu-cluster.yaml mounts our guarded builder.

Ray Serve LLM needs vLLM, which only the GPU image installs, so the guard is
exercised on a Serve ingress of the same construction (``serve.ingress``
over a FastAPI app) whose routes stand in for the OpenAI ones; the replica
is initialised as Serve does it (``__new__``, then the async ``__init__``)
and called over ASGI.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from ray import serve

from deployments.llm_gateway import MAX_MESSAGE_CHARS, clean_error, guard_application
from engines.llm.service_key import ENV_VAR
from engines.translation.llm.engine import LLMEngine

ROOT = Path(__file__).resolve().parents[3]
GPU_CONFIG = ROOT / "configs" / "gpu-cluster.yaml"
KEY = "gpu-profile-service-key-0123456789"
INTERNALS = re.compile(r"ray::|Traceback|File \"|site-packages|pid=|actor_id|\x1b\[|/usr/|original exception")

#: Serve LLM's message shape for an error raised in an engine replica (server_utils.get_response_for_error).
SERVE_LLM_MESSAGE = (
    "Message: prompt is too long (Request ID: 1f), Internal exception: ray::LLMServer.chat() (pid=77, ip=10.0.0.5, "
    'actor_id=ab12)\n  File "/usr/lib/python3.11/site-packages/vllm/x.py", line 9, original exception: ValueError'
)


def gpu_apps() -> dict[str, dict[str, Any]]:
    return {app["name"]: app for app in yaml.safe_load(GPU_CONFIG.read_text())["applications"]}


def stub_openai_application() -> serve.Application:
    """A Serve ingress built like Serve LLM's: ``serve.ingress(FastAPI app)`` over a class, bound with arguments."""
    app = FastAPI()

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": "translator-llm"}]}

    @app.post("/v1/chat/completions")
    async def chat() -> JSONResponse:
        body = {"error": {"message": SERVE_LLM_MESSAGE, "type": "RayTaskError(ValueError)", "code": 400}}
        return JSONResponse(body, status_code=400)

    @app.post("/v1/completions")
    async def completions() -> JSONResponse:
        body = {"error": {"message": "Message: model 'x' not found (Request ID: 2a), Internal exception: y", "code": 404}}
        return JSONResponse(body, status_code=404)

    @serve.ingress(app)
    class OpenAiIngress:
        def __init__(self, llm_deployments: dict[str, Any], model_cards: dict[str, Any]) -> None:
            self.model_cards = model_cards

    return serve.deployment(OpenAiIngress, max_ongoing_requests=1000).bind(llm_deployments={}, model_cards={"m": 1})


async def start_replica(application: serve.Application) -> Any:
    deployment = application._bound_deployment
    cls = deployment.func_or_class
    replica = cls.__new__(cls)
    await replica.__init__(*deployment.init_args, **deployment.init_kwargs)
    return replica


def asgi_client(replica: Any) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=replica, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://llm")


# --------------------------------------------------------------------- the config


def test_gpu_profile_mounts_the_guarded_builder() -> None:
    llm = gpu_apps()["llm"]
    assert llm["import_path"] == "deployments.llm_gateway:build_gpu_app"
    assert llm["route_prefix"] == "/llm"
    assert "api_key" not in yaml.safe_dump(llm), "the key belongs in the Secret, not in the config"


def test_gpu_profile_translator_sends_the_service_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, KEY)
    translator = gpu_apps()["mediatrans"]["args"]["translator"]
    assert translator["engine"] == "llm" and "api_key" not in translator["options"]
    engine = LLMEngine(**translator["options"])
    with engine._new_http_client() as http:
        assert http.headers["authorization"] == f"Bearer {KEY}"
        assert str(http.base_url).rstrip("/").endswith("/llm")


def test_an_explicit_engine_key_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, KEY)
    with LLMEngine(api_key="vendor-key")._new_http_client() as http:
        assert http.headers["authorization"] == "Bearer vendor-key"
    monkeypatch.delenv(ENV_VAR)
    with LLMEngine()._new_http_client() as http:
        assert "authorization" not in http.headers


# --------------------------------------------------------------------- the guarded ingress


def test_guarding_keeps_the_deployment_its_options_and_arguments() -> None:
    stock = stub_openai_application()
    original = stock._bound_deployment
    guarded = guard_application(stock)._bound_deployment
    assert guarded.name == original.name == "OpenAiIngress"
    assert guarded.max_ongoing_requests == 1000
    assert guarded.init_kwargs == original.init_kwargs
    assert guarded.func_or_class is not original.func_or_class
    assert issubclass(guarded.func_or_class, original.func_or_class)


async def test_the_stock_ingress_is_open_and_leaks(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the profile served before: no key asked, Ray's remote traceback in the error body."""
    monkeypatch.setenv(ENV_VAR, KEY)
    async with asgi_client(await start_replica(stub_openai_application())) as client:
        assert (await client.get("/v1/models")).status_code == 200
        assert INTERNALS.search((await client.post("/v1/chat/completions")).text)


@pytest.mark.parametrize("authorization", [None, "Bearer wrong", f"Basic {KEY}"])
async def test_the_guarded_ingress_refuses_without_the_key(monkeypatch: pytest.MonkeyPatch, authorization: str | None) -> None:
    monkeypatch.setenv(ENV_VAR, KEY)
    headers = {} if authorization is None else {"Authorization": authorization}
    async with asgi_client(await start_replica(guard_application(stub_openai_application()))) as client:
        for method, path in (("GET", "/v1/models"), ("POST", "/v1/chat/completions"), ("GET", "/docs")):
            response = await client.request(method, path, headers=headers)
            assert response.status_code == 401, (path, response.text)
            assert response.json()["error"]["code"] == "invalid_api_key"


async def test_the_guarded_ingress_serves_the_key_and_scrubs_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, KEY)
    async with asgi_client(await start_replica(guard_application(stub_openai_application()))) as client:
        client.headers["Authorization"] = f"Bearer {KEY}"
        assert (await client.get("/v1/models")).json()["data"][0]["id"] == "translator-llm"
        leaky = await client.post("/v1/chat/completions")
        assert leaky.status_code == 400
        assert not INTERNALS.search(leaky.text), leaky.text
        assert leaky.json()["error"] == {
            "message": "prompt is too long (Request ID: 1f)",
            "type": "invalid_request_error",
            "param": None,
            "code": 400,
        }
        assert int(leaky.headers["content-length"]) == len(leaky.content)
        missing = await client.post("/v1/completions")
        assert missing.json()["error"]["message"] == "model 'x' not found (Request ID: 2a)"


async def test_a_replica_without_a_key_refuses_the_key_it_would_have_had(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    replica = await start_replica(guard_application(stub_openai_application()))
    assert any(ENV_VAR in r.getMessage() for r in caplog.records), "a replica without a key says so when it starts"
    monkeypatch.setenv(ENV_VAR, KEY)  # too late: the key is read when the replica starts
    async with asgi_client(replica) as client:
        assert (await client.get("/v1/models", headers={"Authorization": f"Bearer {KEY}"})).status_code == 401


@pytest.mark.parametrize(
    ("status", "raw", "message"),
    [
        (500, b'{"error": {"message": "Message: Internal Server Error, original exception: boom"}}', "Internal Server Error"),
        (400, b"not json", "bad request"),
        (503, b'{"error": {"message": "Message: engine dead\\n  File \\"/a.py\\""}}', "service unavailable"),
        (429, b'{"error": {"message": "' + b"x" * (MAX_MESSAGE_CHARS + 1) + b'"}}', "too many requests"),
        (404, b'{"error": {"message": "Could not find model with id \\"m\\"."}}', 'Could not find model with id "m".'),
    ],
)
def test_clean_error_keeps_only_a_safe_message(status: int, raw: bytes, message: str) -> None:
    error = clean_error(status, raw)["error"]
    assert error["message"] == message
    assert error["code"] == status
