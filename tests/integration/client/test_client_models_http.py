"""The client's typed records checked against the running service's own ``/openapi.json``."""

from __future__ import annotations

import inspect
from typing import Any

import httpx
import pytest
from mediatrans_client._sync_resources import Game, Grammar, Speech, Video, Voices
from mediatrans_client.models import (
    AccountInfo,
    GrammarResult,
    LanguageList,
    LocalizationResult,
    Memory,
    MemoryList,
    NativeVoiceList,
    Task,
    Transcript,
    Voice,
    VoiceList,
)
from pydantic import BaseModel

pytestmark = pytest.mark.serve

#: (client model, method, path) whose 200 answer the model parses. The submit answer is the first
#: few fields of a task, so ``Task`` parses it (checked below) but types more than it documents.
SUBMIT = (Task, "post", "/v1/video/translate")
OPERATIONS: list[tuple[type[BaseModel], str, str]] = [
    SUBMIT,
    (Task, "get", "/v1/video/task/{task_id}"),
    (Transcript, "get", "/v1/video/task/{task_id}/transcript"),
    (LanguageList, "get", "/v1/languages"),
    (AccountInfo, "get", "/v1/account"),
    (LocalizationResult, "post", "/v1/game/localization"),
    (GrammarResult, "post", "/v1/grammar"),
    (Voice, "get", "/v1/voice/clone/{voice_id}"),
    (VoiceList, "get", "/v1/voice/clone"),
    (NativeVoiceList, "get", "/v1/tts/voices"),
    (Memory, "get", "/v1/memories/{memory_id}"),
    (MemoryList, "get", "/v1/memories"),
]

_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object"}


def _resolve(doc: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = doc.get("components", {}).get("schemas", {}).get(name) or doc.get("$defs", {})[name]
    return node


def _types(doc: dict[str, Any], node: dict[str, Any]) -> set[str]:
    """The JSON types a schema node allows (``null`` left out; an unconstrained node allows all)."""
    node = _resolve(doc, node)
    found: set[str] = set()
    for branch in node.get("anyOf", []) + node.get("oneOf", []):
        found |= _types(doc, branch)
    kind = node.get("type")
    if isinstance(kind, str):
        found.add(kind)
    elif isinstance(kind, list):
        found.update(kind)
    if "properties" in node:
        found.add("object")
    if not found and "anyOf" not in node and "oneOf" not in node:
        return set(_JSON_TYPES)
    if "integer" in found:
        found.add("number")
    return found - {"null"}


@pytest.fixture(scope="module")
def document(serve_base_url: str) -> dict[str, Any]:
    response = httpx.get(f"{serve_base_url}/openapi.json", timeout=30)
    assert response.status_code == 200
    return response.json()


@pytest.mark.parametrize(("model", "method", "path"), OPERATIONS, ids=[f"{m.__name__}-{p}" for m, _, p in OPERATIONS])
def test_client_model_matches_the_service_schema(
    document: dict[str, Any], model: type[BaseModel], method: str, path: str
) -> None:
    answer = document["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"]
    server = _resolve(document, answer)
    server_props: dict[str, Any] = server.get("properties", {})
    assert server_props, f"{method} {path}: the service documents no fields"
    client = model.model_json_schema()
    client_props = client["properties"]
    # Every field the service always sends is typed on the client.
    missing = set(server.get("required", [])) - set(client_props)
    assert not missing, f"{model.__name__} lacks required fields {missing}"
    # Every field the client types exists on the service, with a compatible JSON type.
    unknown = set(client_props) - set(server_props)
    if (model, method, path) != SUBMIT:
        assert not unknown, f"{model.__name__} types fields the service does not document: {unknown}"
    for name, prop in client_props.items():
        if name in unknown:
            continue
        server_types = _types(document, server_props[name])
        client_types = _types(client, prop)
        assert server_types & client_types, f"{model.__name__}.{name}: client {client_types} vs service {server_types}"


#: (client method, method, path) whose request body the method's keyword arguments stand for.
REQUESTS = [
    (Video.translate, "post", "/v1/video/translate"),
    (Voices.clone, "post", "/v1/voice/clone"),
    (Speech.synthesize, "post", "/v1/tts"),
    (Grammar.check, "post", "/v1/grammar"),
    (Game.localize, "post", "/v1/game/localization"),
]
#: Keyword arguments that steer the client, not the body; and those that carry a body field under another name.
CONTROL = {"self", "extra", "wait", "on_progress", "poll_interval", "timeout", "chunk_size", "output_path"}
CARRIERS = {"path_or_url": {"file", "video_url"}, "sample_path": {"sample"}}


@pytest.mark.parametrize(("call", "method", "path"), REQUESTS, ids=[p for _, _, p in REQUESTS])
def test_every_request_field_of_the_service_is_a_keyword_argument(
    document: dict[str, Any], call: Any, method: str, path: str
) -> None:
    """The service's documented body fields and the client method's keyword arguments are the same set."""
    content = document["paths"][path][method]["requestBody"]["content"]
    body = _resolve(document, next(iter(content.values()))["schema"])
    keywords: set[str] = set()
    for name in inspect.signature(call).parameters:
        if name not in CONTROL:
            keywords |= CARRIERS.get(name, {name})
    assert set(body["properties"]) == keywords
