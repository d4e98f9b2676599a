"""POST /v1/game/localization over HTTP with the real apertium translator."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error

pytestmark = pytest.mark.serve

URL = "/v1/game/localization"
PLACEHOLDERS = re.compile(r"\{\{?\w*\}?\}|%\d?\$?[sd]|</?\w+(=[^>]*)?>|\[/?\w+(=[^\]]*)?\]")


def body(**overrides: object) -> dict:
    return {"text": "Open the door", "content_type": "ui", "source_lang": "en", "target_langs": ["es"], **overrides}


def test_translates_into_every_target(client: httpx.Client, auth: dict[str, str]) -> None:
    response = client.post(URL, json=body(target_langs=["es", "pt-BR", "ca", "fr"], genre="rpg", tone="epic"), headers=auth)
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["original"] == "Open the door"
    assert set(data["translations"]) == {"es", "pt-BR", "ca", "fr"}
    assert all(t and t != "Open the door" for t in data["translations"].values())
    assert (data["content_type"], data["genre"], data["tone"]) == ("ui", "rpg", "epic")
    assert data["shortened"] == []


def test_echo_is_null_when_omitted(client: httpx.Client, auth: dict[str, str]) -> None:
    data = client.post(URL, json=body(), headers=auth).json()
    assert data["genre"] is None and data["tone"] is None


def test_placeholders_and_lines_survive(client: httpx.Client, auth: dict[str, str]) -> None:
    text = "Deal {0} damage to <color=#f00>%s</color>!\n\nPress [b]Start[/b] to win {{gold}} gold 🎉\nLevel %1$s"
    data = client.post(URL, json=body(text=text, content_type="dialogue", target_langs=["es", "pt"]), headers=auth).json()
    for translated in data["translations"].values():
        assert translated.count("\n") == text.count("\n")
        assert sorted(m.group(0) for m in PLACEHOLDERS.finditer(translated)) == sorted(
            m.group(0) for m in PLACEHOLDERS.finditer(text)
        )
        assert "🎉" in translated


def test_max_length_is_enforced(client: httpx.Client, auth: dict[str, str]) -> None:
    text = "Defeat the ancient dragon in the northern mountains to claim the legendary sword of <b>{hero}</b>"
    data = client.post(URL, json=body(text=text, target_langs=["es", "fr"], max_length=30), headers=auth).json()
    for translated in data["translations"].values():
        assert len(translated) <= 30
        assert "{hero}" in translated or "<b>" not in translated
        assert translated.count("<b>") == translated.count("</b>")
    assert set(data["shortened"]) == {"es", "fr"}


def test_source_language_target_returns_text(client: httpx.Client, auth: dict[str, str]) -> None:
    data = client.post(URL, json=body(target_langs=["en-GB", "es"]), headers=auth).json()
    assert data["translations"]["en-GB"] == "Open the door"


@pytest.mark.parametrize(
    ("overrides", "status", "code"),
    [
        ({"text": None}, 400, 1001),
        ({"content_type": "menu"}, 400, 1001),
        ({"target_langs": []}, 400, 1001),
        ({"max_length": 0}, 400, 1001),
        ({"max_length": "ten"}, 400, 1001),
        ({"tone": "sad"}, 400, 1001),
        ({"text": ""}, 400, 1001),
        ({"source_lang": "xx"}, 400, 1002),
        ({"target_langs": ["es", "zz"]}, 400, 1002),
        ({"target_langs": ["ja"]}, 400, 1002),
        ({"text": "a" * 50_001}, 413, 3001),
    ],
)
def test_errors(client: httpx.Client, auth: dict[str, str], overrides: dict, status: int, code: int) -> None:
    payload = {k: v for k, v in body(**overrides).items() if v is not None}
    assert_error(client.post(URL, json=payload, headers=auth), status, code)


def test_auth_and_limits(client: httpx.Client, accounts: Accounts) -> None:
    assert_error(client.post(URL, json=body()), 401, 2001)
    _a, token = accounts.create(rate_per_minute=2, burst=1)
    headers = {"Authorization": f"Bearer {token}"}
    assert client.post(URL, json=body(), headers=headers).status_code == 200
    assert_error(client.post(URL, json=body(), headers=headers), 429, 4001)


def test_quota(client: httpx.Client, accounts: Accounts) -> None:
    _a, token = accounts.create(quotas={"game_characters": 30})
    headers = {"Authorization": f"Bearer {token}"}
    assert client.post(URL, json=body(target_langs=["es", "ca"]), headers=headers).status_code == 200  # 13 chars x 2
    refused = client.post(URL, json=body(), headers=headers)
    assert_error(refused, 456, 4002)
    assert int(refused.headers["retry-after"]) > 0
    usage = client.get("/v1/account", headers=headers).json()["usage"]
    assert usage["game_characters"] == 26


def test_glossary_terms_are_enforced(client: httpx.Client, accounts: Accounts) -> None:
    _a, token = accounts.create()
    headers = {"Authorization": f"Bearer {token}"}
    glossary = {"name": "g", "source_lang": "en", "target_lang": "es", "entries": [{"source": "dragon", "target": "Wyrm"}]}
    gid = client.post("/v1/glossaries", json=glossary, headers=headers).json()["glossary_id"]
    text = "The dragon attacks the village"
    data = client.post(URL, json=body(text=text, target_langs=["es", "ca"], glossary_id=gid), headers=headers).json()
    assert "Wyrm" in data["translations"]["es"]
    assert "Wyrm" not in data["translations"]["ca"]  # the glossary covers es only
    _b, other = accounts.create()
    assert_error(client.post(URL, json=body(glossary_id=gid), headers={"Authorization": f"Bearer {other}"}), 403, 2003)
    # The game table has no "not found" row: an unknown glossary is a bad parameter.
    assert_error(client.post(URL, json=body(glossary_id="gl_missing"), headers=headers), 400, 1001)
    assert_error(client.post(URL, json=body(source_lang="fr", glossary_id=gid), headers=headers), 400, 1001)
