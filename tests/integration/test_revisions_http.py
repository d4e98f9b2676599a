"""Review and revise a video task through the real Serve app (docs/video-revisions.md)."""

from __future__ import annotations

import io
import itertools
import time
from pathlib import Path

import httpx
import pytest
import srt
import webvtt

from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error
from tests.integration.test_video_http import download, submit, wait_done
from tests.support.media import make_video

pytestmark = [pytest.mark.serve, pytest.mark.models]

SPEECH = "The weather is nice today. We walk to the market and buy fresh bread. Then we go home."


@pytest.fixture(scope="module")
def talk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("revise") / "talk.mp4", container="mp4", speech_text=SPEECH)


@pytest.fixture(scope="module")
def owner(serve_redis_url: str) -> dict[str, str]:
    _account, token = Accounts(serve_redis_url).create()
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def done(serve_base_url: str, owner: dict[str, str], talk: Path) -> dict:
    with httpx.Client(base_url=serve_base_url, timeout=60) as client:
        response = submit(client, owner, talk, target_lang="es", source_lang="en", output_format="srt")
        assert response.status_code == 200, response.text
        task = wait_done(client, owner, response.json()["task_id"])
    assert task["status"] == "completed", task
    return task


def wait_revision(client: httpx.Client, headers: dict[str, str], task_id: str) -> tuple[dict, set[str]]:
    """The finished revision and every stage it was seen in."""
    stages: set[str] = set()
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        task = client.get(f"/v1/video/task/{task_id}", headers=headers).json()
        stages.add(task.get("stage", ""))
        if task["status"] in ("completed", "failed", "expired"):
            return task, stages - {""}
        time.sleep(0.2)
    raise AssertionError(f"revision {task_id} not finished")


def revise(client: httpx.Client, headers: dict[str, str], task_id: str, body: dict, **extra: str) -> httpx.Response:
    return client.post(f"/v1/video/task/{task_id}/revise", json=body, headers={**headers, **extra})


def test_transcript_of_a_completed_task(client: httpx.Client, owner: dict[str, str], done: dict) -> None:
    response = client.get(f"/v1/video/task/{done['task_id']}/transcript", headers=owner)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["task_id"] == done["task_id"] and body["revision"] == 0 and body["parent_task_id"] is None
    assert (body["source_lang"], body["target_lang"]) == ("en", "es")
    segments = body["segments"]
    assert [s["id"] for s in segments] == [f"s{i + 1}" for i in range(len(segments))] and len(segments) >= 2
    assert all(0 <= s["start"] < s["end"] <= body["duration"] + 0.01 for s in segments)
    assert all(a["end"] <= b["start"] + 1e-3 for a, b in itertools.pairwise(segments))
    subtitles = " ".join(c.content for c in srt.parse(download(client, done["result"]["subtitle_url"]).decode()))
    assert subtitles.split() == " ".join(s["translation"] for s in segments).split()
    assert "speaker" not in segments[0] and "dubbing" not in segments[0]


def test_a_revision_renders_edits_without_recognizing(client: httpx.Client, owner: dict[str, str], done: dict) -> None:
    segments = client.get(f"/v1/video/task/{done['task_id']}/transcript", headers=owner).json()["segments"]
    body = {
        "segments": [
            {"id": segments[0]["id"], "translation": "Hace un día precioso, Marta."},
            {"id": segments[1]["id"], "source": "We drive to the station and buy a newspaper."},
        ],
        "output_format": "all",
    }
    response = revise(client, owner, done["task_id"], body, **{"Idempotency-Key": "rev-1"})
    assert response.status_code == 200, response.text
    created = response.json()
    assert created["status"] == "queued" and created["parent_task_id"] == done["task_id"] and created["revision"] == 1
    again = revise(client, owner, done["task_id"], body, **{"Idempotency-Key": "rev-1"})
    assert again.json()["task_id"] == created["task_id"]  # the same revision, not a second one

    task, stages = wait_revision(client, owner, created["task_id"])
    assert task["status"] == "completed", task
    assert "recognizing" not in stages and "diarizing" not in stages and "extracting" not in stages
    assert task["parent_task_id"] == done["task_id"] and task["revision"] == 1
    files = task["result"]["files"]
    vtt = " ".join(" ".join(c.text.split()) for c in webvtt.from_buffer(io.StringIO(download(client, files["vtt"]).decode())))
    srt_text = " ".join(" ".join(c.content.split()) for c in srt.parse(download(client, files["srt"]).decode()))
    assert "Hace un día precioso, Marta." in vtt and "Hace un día precioso, Marta." in srt_text
    revised = client.get(f"/v1/video/task/{created['task_id']}/transcript", headers=owner).json()
    assert revised["revision"] == 1 and revised["parent_task_id"] == done["task_id"]
    moved = revised["segments"][1]
    assert moved["source"] == "We drive to the station and buy a newspaper."
    assert moved["translation"] != segments[1]["translation"] and moved["translation"] in srt_text.replace("  ", " ")
    assert download(client, files["burned_video"])[4:8] == b"ftyp"


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ([], "segments"),
        ([{"id": "s99", "translation": "x"}], "'s99' is not in the transcript"),
        ([{"id": "s1", "start": 3.0, "end": 1.0}], "must start before it ends"),
        ([{"id": "s1", "end": 9999.0}], "outside the video"),
        ([{"id": "s2", "start": 0.0}], "before the previous one ends"),
        ([{"id": "s1", "speaker": "Speaker 2"}], "enable_diarization"),
        ([{"id": "s1"}], "changes nothing"),
    ],
)
def test_edits_that_do_not_fit_are_refused(client, owner, done, edits, message) -> None:
    response = revise(client, owner, done["task_id"], {"segments": edits})
    assert_error(response, 400, "INVALID_PARAMETER")
    assert message in response.json()["message"], response.json()


def test_other_accounts_and_unfinished_tasks(client: httpx.Client, accounts: Accounts, owner, done, talk) -> None:
    _account, token = accounts.create()
    stranger = {"Authorization": f"Bearer {token}"}
    for call in (
        lambda h: client.get(f"/v1/video/task/{done['task_id']}/transcript", headers=h),
        lambda h: revise(client, h, done["task_id"], {"segments": [{"id": "s1", "translation": "x"}]}),
    ):
        assert_error(call(stranger), 404, "TASK_NOT_FOUND")
        assert_error(call({}), 401, "UNAUTHORIZED")
    assert_error(client.get(f"/v1/video/task/{'0' * 32}/transcript", headers=owner), 404, "TASK_NOT_FOUND")
    queued = submit(client, stranger, talk, target_lang="es", source_lang="en").json()["task_id"]
    conflict = revise(client, stranger, queued, {"segments": [{"id": "s1", "translation": "x"}]})
    if conflict.status_code != 200:  # a very fast worker may have finished it already
        assert_error(conflict, 409, "CONFLICT")
    wrong = revise(client, owner, done["task_id"], {"segments": [{"id": "s1", "translation": "x"}], "target_lang": "fr"})
    assert_error(wrong, 400, "INVALID_PARAMETER")
    no_dub = revise(client, owner, done["task_id"], {"segments": [{"id": "s1", "translation": "x"}], "dubbing_speed": 1.2})
    assert_error(no_dub, 400, "INVALID_PARAMETER")


def test_a_speaker_edit_changes_the_label(client: httpx.Client, accounts: Accounts, tmp_path: Path) -> None:
    from tests.support.scenes import SceneLine, build_scene, scene_video

    lines = [
        SceneLine(0.5, "Where were you last night?", "en+m3"),
        SceneLine(3.2, "I was at home with my sister.", "en+f4"),
        SceneLine(6.4, "That is not what your brother said.", "en+m3"),
    ]
    video = scene_video(build_scene(lines, 10.0), tmp_path / "dialogue.mp4")
    _account, token = accounts.create()
    headers = {"Authorization": f"Bearer {token}"}
    response = submit(client, headers, video, target_lang="es", source_lang="en", enable_diarization=True, speaker_count=2)
    task = wait_done(client, headers, response.json()["task_id"], timeout_s=300)
    assert task["status"] == "completed", task
    transcript = client.get(f"/v1/video/task/{task['task_id']}/transcript", headers=headers).json()
    assert transcript["speakers"] == ["Speaker 1", "Speaker 2"]
    second = next(s for s in transcript["segments"] if s["speaker"] == "Speaker 2")
    created = revise(client, headers, task["task_id"], {"segments": [{"id": second["id"], "speaker": "Speaker 1"}]})
    assert created.status_code == 200, created.text
    revised, _ = wait_revision(client, headers, created.json()["task_id"])
    assert revised["status"] == "completed", revised
    text = " ".join(c.content for c in srt.parse(download(client, revised["result"]["subtitle_url"]).decode()))
    before = " ".join(c.content for c in srt.parse(download(client, task["result"]["subtitle_url"]).decode()))
    assert before.count("[Speaker 2]") >= 1 and text.count("[Speaker 2]") < before.count("[Speaker 2]")
