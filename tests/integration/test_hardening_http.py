"""Bad input never becomes a 500 and limits hold on every path (real Serve app over HTTP)."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error
from tests.integration.test_video_http import submit, wait_done
from tests.support.http_server import loopback_server
from tests.support.media import make_video

pytestmark = pytest.mark.serve

GAME = "/v1/game/localization"


def post_json(client: httpx.Client, path: str, body: str, headers: dict[str, str]) -> httpx.Response:
    return client.post(path, content=body.encode(), headers={**headers, "Content-Type": "application/json"})


class TestMalformedBodies:
    def test_a_huge_integer_is_a_400(self, client: httpx.Client, auth: dict[str, str]) -> None:
        body = '{"text": "Hi", "source_lang": "en", "target_langs": ["es"], "max_length": ' + "9" * 5000 + "}"
        assert "digits" in assert_error(post_json(client, GAME, body, auth), 400, 1001)["message"]
        assert_error(post_json(client, "/v1/glossaries", '{"name": ' + "1" * 5000 + "}", auth), 400, 1001)

    def test_deep_nesting_is_a_400_not_back_pressure(self, client: httpx.Client, auth: dict[str, str]) -> None:
        assert_error(post_json(client, GAME, "[" * 200_000, auth), 400, 1001)
        assert_error(post_json(client, GAME, '{"text": ' + "[" * 200_000 + "]" * 200_000 + "}", auth), 400, 1001)

    def test_a_large_urlencoded_body_is_refused_while_streaming(self, client: httpx.Client, auth: dict[str, str]) -> None:
        def body():  # 64 MB, never declared up front
            yield b"target_lang=es&padding="
            for _ in range(1024):
                yield b"a" * 65536

        headers = {**auth, "Content-Type": "application/x-www-form-urlencoded"}
        started = time.monotonic()
        response = client.post("/v1/video/translate", content=body(), headers=headers)
        assert_error(response, 400, "INVALID_PARAMETER")
        assert "urlencoded form" in response.json()["message"]
        assert time.monotonic() - started < 20

    def test_a_small_urlencoded_form_still_works(self, client: httpx.Client, auth: dict[str, str]) -> None:
        response = client.post("/v1/video/translate", data={"target_lang": "es"}, headers=auth)
        assert_error(response, 400, "INVALID_PARAMETER")  # parsed: only the missing source is wrong
        assert "exactly one of file and video_url" in response.json()["message"]

    @pytest.mark.parametrize("font", ["Arial\nStyle: Evil,Arial,99", "Noto\rSans", "Tab\there", "Nul\x00l"])
    def test_control_characters_in_the_font_are_refused(self, client: httpx.Client, auth: dict[str, str], font: str) -> None:
        response = submit(client, auth, None, target_lang="es", video_url="https://example.com/a.mp4", subtitle_font=font)
        assert_error(response, 400, "INVALID_PARAMETER")


class TestUrls:
    @pytest.mark.parametrize("url", ["http://1.1.1.1:6379/", "https://8.8.8.8:25/a.mp4", "http://example.com:8080/a.mp4"])
    def test_video_and_callback_urls_use_web_ports_only(self, client: httpx.Client, auth: dict[str, str], url: str) -> None:
        assert "port" in assert_error(submit(client, auth, None, target_lang="es", video_url=url), 400, "INVALID_URL")["message"]
        good_video = "https://93.184.215.14/a.mp4"  # a public literal: no DNS needed
        refused = submit(client, auth, None, target_lang="es", video_url=good_video, callback_url=url)
        assert "callback_url" in assert_error(refused, 400, "INVALID_URL")["message"]

    def test_a_playlist_upload_is_refused(self, client: httpx.Client, auth: dict[str, str], tmp_path: Path) -> None:
        trap = tmp_path / "trap.mp4"
        trap.write_text("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n/etc/hostname\n#EXT-X-ENDLIST\n")
        assert_error(submit(client, auth, trap, target_lang="es"), 400, "UNSUPPORTED_VIDEO")


class TestUnauthenticatedEndpoints:
    def test_languages_are_rate_limited_per_client(self, client: httpx.Client) -> None:
        caller = {"X-Forwarded-For": "203.0.113.77"}
        responses = [client.get("/v1/languages", headers=caller) for _ in range(90)]
        statuses = [r.status_code for r in responses]
        assert statuses.count(200) >= 60 and 429 in statuses  # a burst of 60, then 5 per second
        limited = next(r for r in reversed(responses) if r.status_code == 429)  # a fresh call may find a refilled token
        assert_error(limited, 429, 4001)
        assert int(limited.headers["retry-after"]) >= 1
        assert client.get("/v1/languages", headers={"X-Forwarded-For": "203.0.113.78"}).status_code == 200  # per client

    def test_readiness_is_cached(self, client: httpx.Client) -> None:
        first = client.get("/readyz").json()
        again = client.get("/readyz").json()
        assert first["checked_at"] == again["checked_at"]  # one fan-out to the deployments serves both
        time.sleep(2.2)
        assert client.get("/readyz").json()["checked_at"] > first["checked_at"]


@pytest.mark.models
class TestVideoUrlQuota:
    def test_minutes_of_a_fetched_video_are_charged_once_probed(
        self, client: httpx.Client, accounts: Accounts, tmp_path: Path
    ) -> None:
        make_video(tmp_path / "talk.mp4", container="mp4", speech_text="Good morning. The shop opens at nine.")
        _none, no_minutes = accounts.create(quotas={"video_minutes": 0})
        _some, some_minutes = accounts.create(quotas={"video_minutes": 5})
        with loopback_server(tmp_path) as server:
            url = server.url("/files/talk.mp4")
            refused = submit(client, {"Authorization": f"Bearer {no_minutes}"}, None, target_lang="es", video_url=url)
            assert refused.status_code == 200  # the duration is unknown until the worker has fetched it
            failed = wait_done(client, {"Authorization": f"Bearer {no_minutes}"}, refused.json()["task_id"])
            assert failed["status"] == "failed" and failed["error"]["code"] == "QUOTA_EXCEEDED", failed

            headers = {"Authorization": f"Bearer {some_minutes}"}
            accepted = submit(client, headers, None, target_lang="es", video_url=url)
            assert wait_done(client, headers, accepted.json()["task_id"])["status"] == "completed"
        usage = client.get("/v1/account", headers=headers).json()["usage"]
        assert usage["video_minutes"] == 1 and usage["video_tasks"] == 1


class TestCheapChecksFirst:
    def test_a_50_mb_json_voice_body_is_cut_off_while_streaming(self, client: httpx.Client, auth: dict[str, str]) -> None:
        def body():  # never declared up front: the cap must count while reading
            yield b'{"voice_name": "x", "lang": "en", "sample": "https://example.com/a.wav", "pad": ['
            for _ in range(800):
                yield b"1," * 32768
            yield b"1]}"

        started = time.monotonic()
        response = client.post("/v1/voice/clone", content=body(), headers={**auth, "Content-Type": "application/json"})
        assert_error(response, 413, 3001)
        assert time.monotonic() - started < 20

    def test_text_routes_take_50000_escaped_characters_and_no_more(self, client: httpx.Client, auth: dict[str, str]) -> None:
        escaped = '{"text": "' + "\\ud83d\\ude00" * 60_000 + '"}'  # 720 KB of JSON
        assert_error(post_json(client, "/v1/grammar", escaped, auth), 413, 3001)
        text = "Le café est très bon et la table est grande. " * 1_100  # 49,500 characters
        fits = '{"text": "' + "".join(f"\\u{ord(c):04x}" for c in text) + '", "lang": "fr"}'  # 297 KB of JSON
        assert post_json(client, "/v1/grammar", fits, auth).status_code == 200

    def test_a_trailing_slash_answers_like_the_path_without_it(self, client: httpx.Client, auth: dict[str, str]) -> None:
        plain, slashed = client.get("/v1/account", headers=auth), client.get("/v1/account/", headers=auth)
        assert slashed.status_code == plain.status_code == 200
        assert slashed.json()["account_id"] == plain.json()["account_id"]

    def test_the_api_document_is_served_with_an_etag(self, client: httpx.Client) -> None:
        first = client.get("/openapi.json")
        etag = first.headers["etag"]
        assert first.status_code == 200 and first.json()["openapi"].startswith("3.")
        again = client.get("/openapi.json", headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.headers["etag"] == etag and not again.content
        page = client.get("/docs")
        assert page.status_code == 200 and page.headers["etag"] != etag
