"""Language list: cached, then revalidated with If-None-Match; a 304 is served from the cache."""

from __future__ import annotations

import asyncio

from conftest import LoopbackServer, Recorded, Reply
from mediatrans_client import AsyncClient, Client

CATALOGUE = {
    "languages": [
        {"code": "en", "name": "English", "name_en": "English", "supports_speech": True, "variants": ["en-US", "en-GB"]},
        {"code": "fr", "name": "Français", "name_en": "French", "supports_speech": True},
    ],
    "total": 2,
}


def etag_route(server: LoopbackServer) -> None:
    def handler(request: Recorded) -> Reply:
        if request.headers.get("if-none-match") == '"v1"':
            return Reply(304, None, {"ETag": '"v1"'})
        return Reply(200, CATALOGUE, {"ETag": '"v1"', "Cache-Control": "public, max-age=86400"})

    server.route("GET", "/v1/languages")(handler)


def test_fresh_cache_answers_without_a_request(server: LoopbackServer, client: Client) -> None:
    etag_route(server)
    first = client.languages()
    second = client.languages()
    assert first.codes() == ["en", "fr"] and second is first
    assert len(server.requests_to("GET", "/v1/languages")) == 1


def test_revalidation_sends_if_none_match_and_uses_cache_on_304(server: LoopbackServer) -> None:
    etag_route(server)
    with Client(server.base_url, "tok", language_cache_ttl=0) as c:
        first = c.languages(source="en")
        second = c.languages(source="en")
    calls = server.requests_to("GET", "/v1/languages")
    assert len(calls) == 2
    assert "if-none-match" not in calls[0].headers and calls[1].headers["if-none-match"] == '"v1"'
    assert calls[1].query == {"source": ["en"]}
    assert second.codes() == first.codes() and second.languages[0].variants == ["en-US", "en-GB"]
    assert "authorization" not in calls[0].headers  # GET /v1/languages needs no token


def test_refresh_revalidates_and_queries_are_cached_apart(server: LoopbackServer, client: Client) -> None:
    etag_route(server)
    client.languages()
    client.languages(type="speech")
    client.languages(refresh=True)
    calls = server.requests_to("GET", "/v1/languages")
    assert [c.headers.get("if-none-match") for c in calls] == [None, None, '"v1"']


def test_async_languages_revalidate(server: LoopbackServer) -> None:
    etag_route(server)

    async def run() -> list[str]:
        async with AsyncClient(server.base_url, language_cache_ttl=0) as c:
            await c.languages()
            return (await c.languages()).codes()

    assert asyncio.run(run()) == ["en", "fr"]
    assert server.requests_to("GET", "/v1/languages")[1].headers["if-none-match"] == '"v1"'
