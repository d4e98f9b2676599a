"""The API document says what the service accepts: language codes, multipart bodies, every method."""

from __future__ import annotations

import asyncio

import httpx
from starlette.applications import Starlette

from serve_app.catalog import Catalog
from serve_app.docs_page import render_docs_page
from serve_app.openapi import openapi_document
from serve_app.openapi_examples import EXAMPLES
from serve_app.responses import HANDLED, handle_exception
from serve_app.routes import account, files, game, glossaries, languages, system, video
from serve_app.routing import ApiResource, resources

ROUTES = resources([r for m in (languages, account, glossaries, game, video, files, system) for r in m.ROUTES])
CODES = Catalog.load().accepted_codes


def document() -> dict:
    return openapi_document(ROUTES, CODES)


def test_language_fields_list_the_accepted_codes() -> None:
    doc = document()
    schemas = doc["components"]["schemas"]
    assert schemas["LocalizationRequest"]["properties"]["source_lang"]["enum"] == CODES
    assert schemas["LocalizationRequest"]["properties"]["target_langs"]["items"]["enum"] == CODES
    assert schemas["GlossaryCreate"]["properties"]["target_lang"]["enum"] == CODES
    query = {p["name"]: p for p in doc["paths"]["/v1/languages"]["get"]["parameters"]}
    assert next(b for b in query["source"]["schema"]["anyOf"] if b.get("type") == "string")["enum"] == CODES
    form = schemas["VideoTranslateParamsForm"]["properties"]
    assert form["target_lang"]["enum"] == CODES
    assert form["source_lang"]["enum"] == [*CODES, "auto"]  # detection is asked for with auto
    assert {"pt-BR", "zh-TW", "en"} <= set(CODES) and "x-language-code" not in str(doc)


def test_the_video_form_is_what_a_multipart_client_can_send() -> None:
    body = document()["paths"]["/v1/video/translate"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert body == {"$ref": "#/components/schemas/VideoTranslateParamsForm"}
    form = document()["components"]["schemas"]["VideoTranslateParamsForm"]
    assert form["properties"]["file"] == {"type": "string", "format": "binary", "description": "The file to upload."}
    assert form["oneOf"] == [{"required": ["file"]}, {"required": ["video_url"]}]
    for name, prop in form["properties"].items():  # a form field is omitted, never null
        assert "null" not in str(prop.get("type")) and all(b.get("type") != "null" for b in prop.get("anyOf", [])), name
        assert prop.get("default", "") is not None, name
    assert form["properties"]["subtitle_font"]["default"] == "PingFang SC"
    assert form["properties"]["max_subtitle_length"]["default"] == 42


def test_one_route_per_path_so_405_lists_every_method() -> None:
    by_path = {r.path: r for r in ROUTES if isinstance(r, ApiResource)}
    assert set(by_path["/v1/glossaries/{glossary_id}"].operations) == {"GET", "HEAD", "PUT", "DELETE"}
    app = Starlette(routes=ROUTES, exception_handlers={cls: handle_exception for cls in HANDLED})

    async def call() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            return await client.request("OPTIONS", "/v1/glossaries/gl_1")

    response = asyncio.run(call())
    assert response.status_code == 405
    assert {m.strip() for m in response.headers["allow"].split(",")} == {"GET", "HEAD", "PUT", "DELETE"}
    documented = {m.upper() for m in document()["paths"]["/v1/glossaries/{glossary_id}"]}
    assert documented | {"HEAD"} == {m.strip() for m in response.headers["allow"].split(",")}


def test_every_operation_documents_server_faults_and_load_shedding() -> None:
    for path, operations in document()["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert {"500", "503"} <= set(responses), f"{method} {path}"
            assert "unavailable" in responses["503"]["description"]


def test_every_request_body_has_an_example_the_service_accepts() -> None:
    """Each operation's example is shown in the document and validates against the operation's own body model."""
    from serve_app.routes import grammar, revisions, tts, voice

    routes = resources([r for m in (game, glossaries, grammar, tts, video, revisions, voice) for r in m.ROUTES])
    operations = [op for route in routes if isinstance(route, ApiResource) for op in route.operations.values()]
    operations += [route for route in routes if not isinstance(route, ApiResource)]
    bodies = {op.doc.body for op in operations if getattr(op, "doc", None) is not None and op.doc.body is not None}
    assert len(bodies) >= 8
    doc = openapi_document(routes, CODES)
    shown = [
        media
        for ops in doc["paths"].values()
        for op in ops.values()
        for media in op.get("requestBody", {}).get("content", {}).values()
    ]
    assert len(shown) >= len(bodies) and all("example" in media for media in shown)
    for model in bodies:
        model.model_validate(EXAMPLES[model.__name__])


def test_the_docs_page_shows_body_fields_and_examples() -> None:
    page = render_docs_page(document())
    section = page[page.index("<code>POST /v1/game/localization</code>") :]
    section = section[: section.index("<h2>", 1)] if "<h2>" in section[1:] else section
    assert "<code>target_langs</code>" in section and "<code>content_type</code>" in section
    assert "Example:" in section and "Daily reward ready" in section
    assert "<code>video_url</code>" in page  # the multipart video form's fields too
