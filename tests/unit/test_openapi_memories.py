"""The API document shows the translation-memory operations: JSON or a file to create, examples that validate."""

from __future__ import annotations

from serve_app.catalog import Catalog
from serve_app.docs_page import render_docs_page
from serve_app.openapi import openapi_document
from serve_app.openapi_examples import EXAMPLES
from serve_app.routes import memories
from serve_app.routing import ApiResource, resources

ROUTES = resources(memories.ROUTES)
CODES = Catalog.load().accepted_codes


def document() -> dict:
    return openapi_document(ROUTES, CODES)


def test_every_operation_is_documented_with_the_platform_codes() -> None:
    paths = document()["paths"]
    assert {p: set(ops) for p, ops in paths.items()} == {
        "/v1/memories": {"get", "post"},
        "/v1/memories/{memory_id}": {"get", "delete"},
        "/v1/memories/{memory_id}/entries": {"post", "put"},
        "/v1/memories/{memory_id}/entries/delete": {"post"},
    }
    create = paths["/v1/memories"]["post"]["responses"]
    assert {"201", "400", "401", "403", "409", "413", "429", "456", "500", "503"} <= set(create)
    assert "4002" in create["456"]["description"] and "1005" in create["409"]["description"]
    assert "2004 (not_found)" in paths["/v1/memories/{memory_id}"]["get"]["responses"]["404"]["description"]
    by_path = {r.path: r for r in ROUTES if isinstance(r, ApiResource)}
    assert set(by_path["/v1/memories/{memory_id}/entries"].operations) == {"POST", "PUT"}


def test_create_takes_json_or_a_multipart_file() -> None:
    doc = document()
    content = doc["paths"]["/v1/memories"]["post"]["requestBody"]["content"]
    assert list(content) == ["application/json", "multipart/form-data"]
    assert content["application/json"]["schema"] == {"$ref": "#/components/schemas/MemoryCreate"}
    assert content["multipart/form-data"]["schema"] == {"$ref": "#/components/schemas/MemoryUploadParamsForm"}
    form = doc["components"]["schemas"]["MemoryUploadParamsForm"]
    assert form["properties"]["file"]["format"] == "binary" and {"file", "name", "source_lang"} <= set(form["required"])
    assert form["properties"]["target_lang"]["enum"] == CODES
    assert all(b.get("type") != "null" for b in form["properties"]["description"].get("anyOf", []))
    entry = doc["components"]["schemas"]["MemoryEntry"]["properties"]["source"]
    assert entry["maxLength"] == 2000


def test_every_body_has_an_example_that_validates() -> None:
    doc = document()
    shown = [
        media
        for ops in doc["paths"].values()
        for op in ops.values()
        for media in op.get("requestBody", {}).get("content", {}).values()
    ]
    assert len(shown) == 5 and all("example" in media for media in shown)
    operations = [op for r in ROUTES if isinstance(r, ApiResource) for op in r.operations.values()]
    models = {op.doc.body for op in operations if op.doc.body} | {memories.create_memory.doc.form}  # type: ignore[attr-defined]
    for model in models:
        assert model is not None
        model.model_validate(EXAMPLES[model.__name__])


def test_the_docs_page_lists_them() -> None:
    page = render_docs_page(document())
    assert "<code>POST /v1/memories</code>" in page and "Quest texts" in page
    assert "<code>POST /v1/memories/{memory_id}/entries/delete</code>" in page
