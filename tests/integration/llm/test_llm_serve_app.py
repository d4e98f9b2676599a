"""The ``llm`` Serve application as the CPU profile mounts it: internal, behind the service key.

The embedded server (SmolLM2-135M here) is deployed into the suite's Serve
instance at ``/llm``, on the port that also serves the public API, and reads
its key from the environment Ray's workers inherited (``MEDIATRANS_LLM_KEY``,
exported by this package's conftest before Ray starts, as ``make run`` does).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from core.metrics import LLM_FAMILIES, exported_names
from engines.errors import EngineUnavailable
from engines.llm.service_key import bearer_header
from engines.translation.llm.engine import LLMEngine
from tests.integration.llm.conftest import SERVICE_KEY
from tests.support import dashboard
from tests.support.llm_models import smollm2_gguf

pytestmark = [pytest.mark.llm, pytest.mark.serve]

MODEL_ID = "smollm2"
CEILING = 256
INTERNALS = re.compile(r"ray::|Traceback|File \"|site-packages|pid=|actor_id|\x1b\[|/work/|input_value")


@pytest.fixture(scope="module")
def llm_url(serve_base_url: str) -> Iterator[str]:
    """``{serve_base_url}/llm``: the app deployed for this module, deleted after it."""
    pytest.importorskip("llama_cpp")
    from ray import serve

    from deployments.llm_server import LLMServer, LLMServerArgs

    args = LLMServerArgs(
        model_path=str(smollm2_gguf()), model_id=MODEL_ID, slots=2, n_ctx=2048, max_tokens=64, max_tokens_limit=CEILING
    )
    serve.run(LLMServer.options(ray_actor_options={"num_cpus": 0.1}).bind(args.model_dump()), name="llm", route_prefix="/llm")
    try:
        yield f"{serve_base_url}/llm"
    finally:
        serve.delete("llm")


def chat(**options: object) -> dict[str, object]:
    return {"model": MODEL_ID, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2, **options}


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}])
def test_the_llm_route_refuses_callers_without_the_key(llm_url: str, headers: dict[str, str]) -> None:
    with httpx.Client(base_url=llm_url, timeout=60, headers=headers) as stranger:
        answers = [stranger.get("/v1/models"), stranger.post("/v1/chat/completions", json=chat()), stranger.get("/docs")]
    for response in answers:
        assert response.status_code == 401, response.text
        assert response.json()["error"]["code"] == "invalid_api_key"
        assert not INTERNALS.search(response.text)


def test_the_key_is_served_and_errors_stay_one_clean_line(llm_url: str) -> None:
    with httpx.Client(base_url=llm_url, timeout=120, headers=bearer_header(SERVICE_KEY)) as http:
        assert http.get("/v1/models").json()["data"][0]["id"] == MODEL_ID
        assert http.post("/v1/chat/completions", json=chat()).status_code == 200
        over = http.post("/v1/chat/completions", json=chat(max_tokens=CEILING + 1))
        assert over.status_code == 400 and over.json()["error"]["code"] == "invalid_value"
        broken = http.post("/v1/chat/completions", content=b"{not json", headers={"content-type": "application/json"})
        unknown = http.get("/v1/nothing")
        for response, status in ((over, 400), (broken, 400), (unknown, 404)):
            assert response.status_code == status, response.text
            assert set(response.json()["error"]) == {"message", "type", "param", "code"}
            assert not INTERNALS.search(response.text), response.text


def test_the_translator_engine_reaches_it_with_the_key_only(llm_url: str) -> None:
    engine = LLMEngine(base_url=f"{llm_url}/v1", model=MODEL_ID)  # the key from MEDIATRANS_LLM_KEY, as in the profile
    engine.start()
    try:
        engine.health()
    finally:
        engine.shutdown()
    with pytest.raises(EngineUnavailable):
        LLMEngine(base_url=f"{llm_url}/v1", model=MODEL_ID, api_key="wrong").start()


def test_completions_are_exported_as_llm_metrics(llm_url: str) -> None:
    """Tokens, finish reasons and latency per completion, busy slots and queue sampled: all on Ray's endpoint."""
    from tests.integration.test_metrics_http import metrics_endpoint, scrape_until

    with httpx.Client(base_url=llm_url, timeout=120, headers=bearer_header(SERVICE_KEY)) as client:
        for _ in range(2):
            assert client.post("/v1/chat/completions", json=chat(max_tokens=3)).status_code == 200
    samples = scrape_until(metrics_endpoint(), exported_names(LLM_FAMILIES), timeout_s=120)
    tokens = {labels["kind"]: value for labels, value in samples["ray_mediatrans_llm_tokens_total"]}
    assert tokens["prompt"] > tokens["completion"] >= 2  # other tests of this module complete too
    assert sum(v for _, v in samples["ray_mediatrans_llm_requests_total"]) >= 2
    assert sum(v for _, v in samples["ray_mediatrans_llm_request_seconds_count"]) >= 2
    assert all(0 <= v <= 2 for _, v in samples["ray_mediatrans_llm_slots_busy"])  # the app's 2 slots
    assert dashboard.metric_names("ray_mediatrans_llm_") <= exported_names(LLM_FAMILIES)
