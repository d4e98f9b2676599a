"""Translate a client's subtitle file through the real Serve app (docs/subtitle-translation.md)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import srt

from engines.translation.text_language import detect_text_language
from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error
from tests.integration.test_revisions_http import wait_revision
from tests.integration.test_video_http import download, wait_done
from tests.support.media import make_video

pytestmark = [pytest.mark.serve, pytest.mark.models]

SRT = """1
00:00:02,500 --> 00:00:05,000
[Anna] The weather is nice today.

2
00:00:05,400 --> 00:00:08,200
We walk to the market
and buy fresh bread.

3
00:00:08,600 --> 00:00:10,900
[Ben] Then we go home.
"""


def in_spanish(text: str) -> bool:
    """Told apart from the English it was translated from (not any engine's exact words)."""
    found = detect_text_language(text, ["en", "es"])
    return found is not None and found[0] == "es"


@pytest.fixture(scope="module")
def owner(serve_redis_url: str) -> dict[str, str]:
    _account, token = Accounts(serve_redis_url).create()
    return {"Authorization": f"Bearer {token}"}


def send(
    client: httpx.Client, headers: dict[str, str], data: bytes | None, name: str = "talk.srt", **fields: str
) -> httpx.Response:
    files = {"file": ("talk.srt", data, "application/octet-stream")} if data is not None else None
    return client.post("/v1/subtitles/translate", data=fields, files=files, headers=headers)


def test_a_srt_comes_back_translated_with_its_times(client: httpx.Client, owner: dict[str, str]) -> None:
    response = send(client, owner, SRT.encode(), target_lang="es", additional_target_langs="fr")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "queued" and [t["target_lang"] for t in body["additional_tasks"]] == ["fr"]
    task, stages = wait_revision(client, owner, body["task_id"])
    assert task["status"] == "completed", task
    assert not stages & {"extracting", "recognizing", "diarizing"}, stages
    assert task["result"]["source_lang"] == "en"  # told from the text
    cues = list(srt.parse(download(client, task["result"]["subtitle_url"]).decode()))
    assert cues[0].start.total_seconds() == 2.5 and cues[-1].end.total_seconds() <= 10.9
    assert in_spanish(" ".join(c.content for c in cues))
    transcript = client.get(f"/v1/video/task/{body['task_id']}/transcript", headers=owner).json()
    assert [s["speaker"] for s in transcript["segments"]] == ["Anna", "Anna", "Ben"]

    french = wait_done(client, owner, body["additional_tasks"][0]["task_id"])
    assert french["status"] == "completed" and french["parent_task_id"] == body["task_id"], french
    revised = client.post(
        f"/v1/video/task/{body['task_id']}/revise", json={"segments": [{"id": "s1", "translation": "Hace sol."}]}, headers=owner
    )
    assert revised.status_code == 200, revised.text


@pytest.mark.parametrize(
    ("data", "fields", "says"),
    [
        (b"1\n00:00:05,000 --> 00:00:04,000\nBackwards.\n", {}, "line 2"),
        (b"\x00\x01\x02binary\x00", {}, "not text"),
        (b"WEBVTT\n\nNOTE nothing here\n", {}, "no subtitle cue"),
        (b"1\n00:00:01,000 --> 00:00:02,000\n" + b"x" * (2 * 1024 * 1024), {}, "2 MB"),
        (SRT.encode(), {"output_format": "burned_video"}, "burned_video"),
        (SRT.encode(), {"enable_dubbing": "true"}, "enable_dubbing"),
        (None, {}, "file"),
    ],
    ids=["backwards", "binary", "no-cue", "too-big", "burned", "dubbing", "no-file"],
)
def test_bad_files_and_fields_are_refused_with_the_first_bad_line(
    client: httpx.Client, owner: dict[str, str], data: bytes | None, fields: dict[str, str], says: str
) -> None:
    before = client.get("/v1/account", headers=owner).json()["usage"]
    response = send(client, owner, data, target_lang="es", source_lang="en", **fields)
    body = assert_error(response, 400, "INVALID_PARAMETER")
    assert says in body["message"] + str(body.get("details", "")), body
    assert "Traceback" not in body["message"] and "/tmp" not in body["message"]
    assert client.get("/v1/account", headers=owner).json()["usage"] == before


def test_another_account_cannot_read_the_task(client: httpx.Client, accounts: Accounts, owner: dict[str, str]) -> None:
    task_id = send(client, owner, SRT.encode(), target_lang="es", source_lang="en").json()["task_id"]
    _account, token = accounts.create()
    assert_error(client.get(f"/v1/video/task/{task_id}", headers={"Authorization": f"Bearer {token}"}), 404, "TASK_NOT_FOUND")
    assert_error(send(client, {}, SRT.encode(), target_lang="es"), 401, "UNAUTHORIZED")


@pytest.fixture(scope="module")
def talk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("own-subtitles") / "talk.mp4", container="mp4", speech_text="Hello there.")


def with_subtitles(client: httpx.Client, headers: dict[str, str], video: Path, subtitles: bytes, **fields: str) -> httpx.Response:
    files = {
        "file": (video.name, video.read_bytes(), "video/mp4"),
        "subtitle_file": ("own.srt", subtitles, "application/x-subrip"),
    }
    return client.post("/v1/video/translate", data=fields, files=files, headers=headers)


def test_a_video_with_its_own_subtitles_is_not_recognized(client: httpx.Client, owner: dict[str, str], talk: Path) -> None:
    own = b"1\n00:00:00,300 --> 00:00:01,600\n[Anna] The weather is nice today.\n"
    response = with_subtitles(client, owner, talk, own, target_lang="es", output_format="all")
    assert response.status_code == 200, response.text
    task, stages = wait_revision(client, owner, response.json()["task_id"])
    assert task["status"] == "completed", task
    assert not stages & {"extracting", "recognizing", "diarizing"}, stages
    assert task["result"]["files"]["burned_video"] and task["result"]["source_lang"] == "en"
    cues = list(srt.parse(download(client, task["result"]["files"]["srt"]).decode()))
    assert cues[0].start.total_seconds() == 0.3 and in_spanish(cues[0].content)

    # the transcript this service returned is taken back the same way, speakers kept
    transcript = client.get(f"/v1/video/task/{task['task_id']}/transcript", headers=owner).content
    again = with_subtitles(client, owner, talk, transcript, target_lang="fr")
    assert again.status_code == 200, again.text
    done = wait_done(client, owner, again.json()["task_id"])
    assert done["status"] == "completed", done
    segments = client.get(f"/v1/video/task/{done['task_id']}/transcript", headers=owner).json()["segments"]
    assert [s["speaker"] for s in segments] == ["Anna"]


def test_own_subtitles_are_checked_with_the_submission(client: httpx.Client, owner: dict[str, str], talk: Path) -> None:
    good = b"1\n00:00:00,300 --> 00:00:01,600\nHello there.\n"
    bad = with_subtitles(client, owner, talk, b"1\n00:00:03,000 --> 00:00:01,000\nBack.\n", target_lang="es")
    assert "line 2" in assert_error(bad, 400, "INVALID_PARAMETER")["message"]
    diarized = with_subtitles(client, owner, talk, good, target_lang="es", enable_diarization="true")
    assert "subtitle_file" in assert_error(diarized, 400, "INVALID_PARAMETER")["message"]
    ranged = with_subtitles(client, owner, talk, good, target_lang="es", start_time="1")
    assert_error(ranged, 400, "INVALID_PARAMETER")
