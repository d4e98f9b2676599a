"""The LLM translator's typed options: what the profiles write validates, nonsense fails at build, describe() masks the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from engines.options import OptionsError
from engines.translation.languages import DEFAULT_LANGUAGES
from engines.translation.llm.engine import LLMEngine
from engines.translation.llm.options import LLMOptions

ROOT = Path(__file__).resolve().parents[3]
PROFILES = ("configs/local.yaml", "configs/gpu-cluster.yaml", "cluster/kuberay/rayservice.yaml")


def llm_specs(node: Any) -> list[dict[str, Any]]:
    """Every ``engine: llm`` mapping anywhere in a YAML document (and in YAML held as text: KubeRay's serveConfigV2)."""
    if isinstance(node, str) and "engine:" in node:
        return llm_specs(yaml.safe_load(node))
    if isinstance(node, dict):
        found = [node] if node.get("engine") == "llm" else []
        return found + [spec for value in node.values() for spec in llm_specs(value)]
    if isinstance(node, list):
        return [spec for item in node for spec in llm_specs(item)]
    return []


def documents(path: str) -> list[Any]:
    return list(yaml.safe_load_all((ROOT / path).read_text(encoding="utf-8")))


@pytest.mark.parametrize("profile", PROFILES)
def test_every_profile_configures_the_llm_engine_validly(profile: str) -> None:
    found = [spec for doc in documents(profile) for spec in llm_specs(doc)]
    assert found, f"{profile} has no llm engine"
    for spec in found:
        options = LLMOptions.model_validate(spec.get("options") or {})
        assert options.model == "translator-llm" and options.structured_output == "json_schema"


def test_defaults_are_the_documented_ones() -> None:
    options = LLMOptions()
    assert (options.base_url, options.model, options.api_key) == ("http://127.0.0.1:8000", None, None)
    assert (options.batch_size, options.concurrency, options.max_inflight, options.max_tokens) == (16, 4, 16, 2048)
    assert (options.timeout_s, options.max_retries, options.backoff_s, options.max_backoff_s) == (60.0, 3, 0.5, 30.0)
    assert options.languages == DEFAULT_LANGUAGES and options.output_checks and options.structured_output is None


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("structured_output", "xml"),
        ("batch_size", 0),
        ("concurrency", 0),
        ("max_retries", -1),
        ("timeout_s", 0),
        ("languages", []),
    ],
)
def test_nonsense_is_refused_naming_the_key(key: str, value: Any) -> None:
    with pytest.raises(OptionsError, match=rf"engine 'llm': option '{key}'"):
        LLMEngine(**{key: value})


def test_a_typo_is_refused() -> None:
    with pytest.raises(OptionsError, match="unknown option 'batchsize'"):
        LLMEngine(batchsize=8)


def test_max_inflight_is_never_below_concurrency() -> None:
    assert LLMEngine(concurrency=24).max_inflight == 24
    assert LLMEngine(concurrency=2, max_inflight=8).max_inflight == 8


def test_describe_masks_the_key_and_reports_what_is_used() -> None:
    described = LLMEngine(base_url="http://h:8000/llm/v1/", api_key="secret", batch_size=8).describe()
    assert "secret" not in str(described) and described["api_key"]
    assert described["engine"] == "llm" and described["base_url"] == "http://h:8000/llm"
    assert described["model"] is None, "no model is picked before start()"
    assert described["batch_size"] == 8 and described["pairs"] > 0 and described["stats"]["calls"] == 0


def test_an_empty_key_sends_no_authorization(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDIATRANS_LLM_KEY", "from-env")
    with LLMEngine(api_key="")._new_http_client() as http:
        assert "authorization" not in http.headers
