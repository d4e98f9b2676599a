"""POST /v1/grammar and GET /v1/grammar/rules through the real Serve app (real engines)."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error

pytestmark = [pytest.mark.serve, pytest.mark.models]

URL = "/v1/grammar"
TEXT = "I has a apple and and it is red. Their going too the store tomorow."


def check(client: httpx.Client, auth: dict[str, str], **body: object) -> httpx.Response:
    return client.post(URL, json=body, headers=auth)


def test_issues_are_positioned_sorted_and_scored(client: httpx.Client, auth: dict[str, str]) -> None:
    response = check(client, auth, text=TEXT, lang="en", auto_correct=True)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["original"] == TEXT and body["lang"] == "en" and body["issues_count"] == len(body["issues"]) >= 4
    offsets = [i["offset"] for i in body["issues"]]
    assert offsets == sorted(offsets)
    for issue in body["issues"]:
        assert issue["wrong"] == TEXT[issue["offset"] : issue["offset"] + issue["length"]]
        assert issue["type"] in ("spelling", "grammar", "punctuation", "style", "wordiness")
        assert issue["severity"] in ("warning", "error")  # the default floor
    for a, b in zip(body["issues"], body["issues"][1:]):
        assert a["offset"] + a["length"] <= b["offset"]  # never two issues on one span
    flagged = {i["wrong"] for i in body["issues"]}
    assert {"has", "and and", "tomorow"} <= flagged
    assert 0 < body["quality_score"] < 100
    fixed = body["corrected"]
    assert "tomorrow" in fixed and "and and" not in fixed
    again = check(client, auth, text=fixed, lang="en").json()
    assert again["issues_count"] < body["issues_count"]


def test_clean_text_scores_100(client: httpx.Client, auth: dict[str, str]) -> None:
    body = check(client, auth, text="The council approved the new budget on Tuesday.", auto_correct=True).json()
    assert body == {
        "original": "The council approved the new budget on Tuesday.",
        "corrected": None,
        "issues": [],
        "issues_count": 0,
        "lang": "en",
        "quality_score": 100.0,
    }


def test_options_filter_and_shape_the_answer(client: httpx.Client, auth: dict[str, str]) -> None:
    only_spelling = check(client, auth, text=TEXT, lang="en", check_types=["spelling"]).json()
    assert [i["type"] for i in only_spelling["issues"]] == ["spelling"]
    errors_only = check(client, auth, text=TEXT, lang="en", severity="error").json()
    assert errors_only["issues"] and all(i["severity"] == "error" for i in errors_only["issues"])
    disabled = check(client, auth, text=TEXT, lang="en", disable_rules=["SPELLING", "REPEATED_WORD"]).json()
    assert not {"SPELLING", "REPEATED_WORD"} & {i["rule_id"] for i in disabled["issues"]}
    formal = "We can't finish this in order to win, and it's late."
    general = check(client, auth, text=formal, lang="en").json()
    academic = check(client, auth, text=formal, lang="en", domain="academic").json()
    assert not [i for i in general["issues"] if i["type"] in ("style", "wordiness")]
    assert {"EN_STYLE_CONTRACTION", "EN_WORDY_PHRASE"} <= {i["rule_id"] for i in academic["issues"]}


@pytest.mark.parametrize(
    ("lang", "text", "wrong"),
    [
        ("fr", "Les chat mange une pomme.", "chat"),
        ("de", "Der Hund läuft schnel nach Hause.", "schnel"),
        ("es", "El perro corre muy rapido por el parque , y salta.", " ,"),
    ],
)
def test_other_languages(client: httpx.Client, auth: dict[str, str], lang: str, text: str, wrong: str) -> None:
    body = check(client, auth, text=text, lang=lang).json()
    assert wrong in {i["wrong"] for i in body["issues"]}, body


def test_language_is_detected(client: httpx.Client, auth: dict[str, str]) -> None:
    body = check(client, auth, text="Der Bürgermeister eröffnete gestern die neue Bibliothek im Stadtzentrum.").json()
    assert body["lang"] == "de"


def test_a_text_of_50000_characters_is_checked(client: httpx.Client, auth: dict[str, str]) -> None:
    paragraph = "The committee met on Tuesday and approved the plan for the new park. " * 700
    text = (paragraph + "It was a sucess for the the town. ")[:50_000]
    started = time.monotonic()
    response = check(client, auth, text=text, lang="en")
    assert response.status_code == 200, response.text
    assert time.monotonic() - started < 60
    flagged = {(i["wrong"], i["offset"]) for i in response.json()["issues"]}
    assert ("sucess", text.index("sucess")) in flagged


class TestErrors:
    def test_every_contract_code(self, client: httpx.Client, auth: dict[str, str]) -> None:
        assert_error(check(client, auth, text="x" * 50_001), 413, 3001)
        assert_error(check(client, auth, text=""), 422, 3002)
        assert_error(check(client, auth, text=" ?!… 😀 -- "), 422, 3002)
        assert_error(check(client, auth, text="Hello there.", lang="xx"), 400, 1002)
        assert_error(check(client, auth, text="Hello there.", lang="th"), 400, 1002)  # a catalogue language without grammar
        assert_error(check(client, auth, text="Hello there.", check_types=["spelling", "tone"]), 400, 1003)
        assert_error(check(client, auth, text="Hello there.", disable_rules=["NOT_A_RULE"]), 400, 1006)
        assert_error(check(client, auth, text="Hello there.", severity="fatal"), 400, 1001)
        assert_error(check(client, auth, text=123), 400, 1001)
        assert_error(check(client, auth), 400, 1001)
        assert_error(check(client, auth, text="Hello", domain="legal"), 400, 1001)
        not_json = client.post(URL, content=b"text=Hello", headers={**auth, "Content-Type": "text/plain"})
        assert_error(not_json, 400, 1001)
        assert_error(client.post(URL, json={"text": "Hello"}), 401, 2001)

    def test_scope_and_rate_limit(self, client: httpx.Client, accounts: Accounts) -> None:
        _account, token = accounts.create(scopes=["video"])
        assert_error(check(client, {"Authorization": f"Bearer {token}"}, text="Hello there."), 403, 2003)
        _account, token = accounts.create(rate_per_minute=1, burst=1)
        headers = {"Authorization": f"Bearer {token}"}
        assert check(client, headers, text="Hello there.").status_code == 200
        assert_error(check(client, headers, text="Hello there."), 429, 4001)

    def test_quota_is_counted_in_characters(self, client: httpx.Client, accounts: Accounts) -> None:
        _account, token = accounts.create(quotas={"grammar_characters": 20})
        headers = {"Authorization": f"Bearer {token}"}
        assert check(client, headers, text="Hello there friend.").status_code == 200
        assert_error(check(client, headers, text="Hello there friend."), 456, 4002)


def test_rules_catalogue(client: httpx.Client, auth: dict[str, str]) -> None:
    everything = client.get("/v1/grammar/rules", headers=auth).json()
    ids = {r["id"] for r in everything["rules"]}
    assert {"SPELLING", "REPEATED_WORD", "EN_A_VS_AN", "UNBALANCED_QUOTE", "EN_WORDY_PHRASE"} <= ids
    assert everything["total"] == len(everything["rules"])
    languages = {lang["code"]: lang for lang in everything["languages"]}
    assert len([c for c, s in languages.items() if s["spelling"]]) >= 20
    assert languages["en"]["grammar"] and languages["fr"]["grammar"] and languages["de"]["style"]
    french = client.get("/v1/grammar/rules", params={"lang": "fr", "type": "spelling"}, headers=auth).json()
    assert french["rules"] and all(r["type"] == "spelling" for r in french["rules"])
    assert all(not r["languages"] or "fr" in r["languages"] for r in french["rules"])
    assert_error(client.get("/v1/grammar/rules", params={"lang": "xx"}, headers=auth), 400, 1002)
    assert_error(client.get("/v1/grammar/rules", params={"type": "tone"}, headers=auth), 400, 1001)


def test_regional_variants(client: httpx.Client, auth: dict[str, str]) -> None:
    """Correct Brazilian Portuguese given as pt gets no issue; the European rule stays for pt-PT; every variant
    of the language list is accepted; the rule list of a variant leaves out the other variant's rules."""
    brazilian = "Ela deixou sua bolsa no carro."
    for lang in ("pt", "pt-BR"):
        body = check(client, auth, text=brazilian, lang=lang).json()
        assert body["issues_count"] == 0 and body["lang"] == lang, body
    european = check(client, auth, text=brazilian, lang="pt-PT", severity="info").json()
    assert "POSSESSIVE_WITHOUT_ARTICLE" in {i["rule_id"] for i in european["issues"]}
    british = check(client, auth, text="The colour of the theatre was their favourite.", lang="en").json()
    assert british["issues_count"] == 0 and british["lang"] == "en", british
    for code in ("en-US", "en-GB", "pt-PT", "zh-CN", "zh-TW", "fr-CA", "es-MX", "nl-BE"):
        response = check(client, auth, text="Ok.", lang=code)
        assert response.status_code == 200 and response.json()["lang"] == code, response.text
    rules = {
        lang: {r["id"] for r in client.get("/v1/grammar/rules", params={"lang": lang}, headers=auth).json()["rules"]}
        for lang in ("pt-BR", "pt-PT")
    }
    assert "POSSESSIVE_WITHOUT_ARTICLE" in rules["pt-PT"] - rules["pt-BR"]
    languages = client.get("/v1/grammar/rules", headers=auth).json()["languages"]
    assert len({lang["code"].split("-")[0] for lang in languages}) >= 42
