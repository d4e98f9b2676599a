"""Base URL and token from arguments or the environment; the token stays on the API's origin."""

from __future__ import annotations

import pytest

from mediatrans_client import Client
from mediatrans_client._requests import ClientSettings, RequestSpec, request_headers


def test_environment_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDIATRANS_BASE_URL", "https://api.example.com/")
    monkeypatch.setenv("MEDIATRANS_TOKEN", "mt_env")
    with Client() as c:
        assert c.settings.base_url == "https://api.example.com" and c.settings.token == "mt_env"
        assert c.settings.timeout == 30.0 and c.settings.retry.max_attempts == 5
    with Client("https://other.example.com", "mt_arg", max_attempts=2) as c:
        assert c.settings.token == "mt_arg" and c.settings.retry.max_attempts == 2


@pytest.mark.parametrize(
    "given", ["http://127.0.0.1:8000", "http://127.0.0.1:8000/", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/"]
)
def test_a_base_url_with_or_without_v1_reaches_the_same_root(given: str) -> None:
    """The URL `make run` prints ends in /v1; the request paths start with /v1 themselves."""
    with Client(given, "mt_x") as c:
        assert c.settings.base_url == "http://127.0.0.1:8000"
    with Client("https://api.example.com/mt/v1", "mt_x") as c:  # a path prefix before /v1 is kept
        assert c.settings.base_url == "https://api.example.com/mt"


def test_missing_base_url_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEDIATRANS_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="MEDIATRANS_BASE_URL"):
        Client()


def test_token_only_sent_to_the_api_origin() -> None:
    settings = ClientSettings("https://api.example.com", "mt_secret")
    own = request_headers(settings, RequestSpec("GET", "https://api.example.com/v1/files/t/a.srt?sig=x"))
    relative = request_headers(settings, RequestSpec("GET", "/v1/video/task/t"))
    cdn = request_headers(settings, RequestSpec("GET", "https://cdn.example.net/t/a.srt"))
    assert own["Authorization"] == relative["Authorization"] == "Bearer mt_secret"
    assert "Authorization" not in cdn


def test_idempotency_key_is_fixed_per_request() -> None:
    a, b = RequestSpec("POST", "/v1/game/localization", idempotent=True), RequestSpec("POST", "/x", idempotent=True)
    assert a.idempotency_key and a.idempotency_key == a.headers["Idempotency-Key"] != b.idempotency_key
    assert RequestSpec("POST", "/v1/grammar").idempotency_key is None
