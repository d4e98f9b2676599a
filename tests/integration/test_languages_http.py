"""GET /v1/languages over HTTP, answered from the running translator's real pairs."""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.serve

FLAGS = ("supports_formality", "supports_glossary", "supports_speech", "supports_ocr", "supports_document")


def codes(response: httpx.Response) -> set[str]:
    body = response.json()
    assert body["total"] == len(body["languages"])
    return {row["code"] for row in body["languages"]}


def test_all_49_languages(client: httpx.Client) -> None:
    response = client.get("/v1/languages")
    assert response.status_code == 200
    body = response.json()
    assert body["total"] == 49
    for row in body["languages"]:
        assert set(row) >= {"code", "name", "name_en", *FLAGS}
        assert len(row["code"]) == 2 and row["code"].islower()
        assert all(isinstance(row[f], bool) for f in FLAGS)
    by_code = {row["code"]: row for row in body["languages"]}
    assert by_code["ja"]["name"] == "日本語"
    assert by_code["pt"]["variants"] == ["pt-BR", "pt-PT"]


def test_caching_headers_and_304(client: httpx.Client) -> None:
    first = client.get("/v1/languages")
    assert first.headers["cache-control"] == "public, max-age=86400"
    etag = first.headers["etag"]
    again = client.get("/v1/languages", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    filtered = client.get("/v1/languages?source=en", headers={"If-None-Match": etag})
    assert filtered.status_code == 200
    assert filtered.headers["etag"] != etag


def test_source_filter_matches_translator_pairs(client: httpx.Client) -> None:
    targets = codes(client.get("/v1/languages?source=en"))
    assert {"es", "ca"} <= targets  # direct apertium pairs installed by setup
    assert "en" not in targets
    assert "ja" not in targets  # no engine in the CPU profile translates en→ja
    assert codes(client.get("/v1/languages?source=pt-BR")) == codes(client.get("/v1/languages?source=pt"))


def test_target_filter_and_variants(client: httpx.Client) -> None:
    into_spanish = codes(client.get("/v1/languages?target=es"))
    assert "en" in into_spanish
    into_brazilian = codes(client.get("/v1/languages?target=pt-BR"))
    assert "es" in into_brazilian
    assert into_brazilian <= codes(client.get("/v1/languages?target=pt")) | into_brazilian


def test_source_and_target_are_consistent(client: httpx.Client) -> None:
    for source in codes(client.get("/v1/languages?capability=glossary")):
        for target in codes(client.get(f"/v1/languages?source={source}")):
            assert source in codes(client.get(f"/v1/languages?target={target}"))
        break


def test_flags_drive_filters(client: httpx.Client) -> None:
    rows = client.get("/v1/languages").json()["languages"]
    for kind in ("speech", "ocr"):
        expected = {r["code"] for r in rows if r[f"supports_{kind}"]}
        assert codes(client.get(f"/v1/languages?type={kind}")) == expected
    for capability in ("formality", "glossary", "document"):
        expected = {r["code"] for r in rows if r[f"supports_{capability}"]}
        assert codes(client.get(f"/v1/languages?capability={capability}")) == expected
    glossary = {r["code"] for r in rows if r["supports_glossary"]}
    assert {"en", "es", "pt"} <= glossary
    assert "ja" not in glossary


@pytest.mark.parametrize(
    "query",
    ["type=video", "capability=speed", "source=xx", "target=english", "source=", "target=pt-XX", "type="],
)
def test_invalid_parameters(client: httpx.Client, query: str) -> None:
    response = client.get(f"/v1/languages?{query}")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == 1001
    assert body["request_id"] == response.headers["x-request-id"]


def test_case_insensitive_codes(client: httpx.Client) -> None:
    assert codes(client.get("/v1/languages?source=EN")) == codes(client.get("/v1/languages?source=en"))
