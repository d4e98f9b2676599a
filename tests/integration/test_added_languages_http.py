"""Add a language to a finished video task through the real Serve app (docs/video-languages.md)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import srt

from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error
from tests.integration.test_revisions_http import wait_revision
from tests.integration.test_video_http import download, submit, wait_done
from tests.support.media import make_video

pytestmark = [pytest.mark.serve, pytest.mark.models]

SPEECH = "The weather is nice today. We walk to the market and buy fresh bread. Then we go home."


@pytest.fixture(scope="module")
def talk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("languages") / "talk.mp4", container="mp4", speech_text=SPEECH)


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


def add(client: httpx.Client, headers: dict[str, str], task_id: str, body: dict, **extra: str) -> httpx.Response:
    return client.post(f"/v1/video/task/{task_id}/translations", json=body, headers={**headers, **extra})


def test_an_added_language_is_a_normal_task_without_recognition(client: httpx.Client, owner: dict[str, str], done: dict) -> None:
    response = add(client, owner, done["task_id"], {"target_lang": "fr", "output_format": "vtt"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "queued" and body["parent_task_id"] == done["task_id"] and body["target_lang"] == "fr"
    assert body["estimated_seconds"] >= 1 and body["task_id"] != done["task_id"]
    task, stages = wait_revision(client, owner, body["task_id"])
    assert task["status"] == "completed", task
    assert task["parent_task_id"] == done["task_id"] and "revision" not in task
    assert stages <= {"validating", "translating", "synthesizing", "packaging"}, stages
    assert task["result"]["subtitle_url"].split("?")[0].endswith(".vtt") and task["result"]["source_lang"] == "en"

    parent = client.get(f"/v1/video/task/{done['task_id']}/transcript", headers=owner).json()
    child = client.get(f"/v1/video/task/{body['task_id']}/transcript", headers=owner).json()
    assert child["target_lang"] == "fr" and child["parent_task_id"] == done["task_id"]
    keys = ("id", "start", "end", "source")
    assert [{k: s[k] for k in keys} for s in child["segments"]] == [{k: s[k] for k in keys} for s in parent["segments"]]
    assert [s["translation"] for s in child["segments"]] != [s["translation"] for s in parent["segments"]]

    # it is revised, and gets languages of its own, as any task
    edit = {"segments": [{"id": "s1", "translation": "Il fait beau."}]}
    revised = client.post(f"/v1/video/task/{body['task_id']}/revise", json=edit, headers=owner)
    assert revised.status_code == 200, revised.text
    again = add(client, owner, body["task_id"], {"target_lang": "it"})
    assert again.status_code == 200 and again.json()["parent_task_id"] == body["task_id"], again.text


def test_same_key_same_task_and_the_parents_choices_carry_over(client: httpx.Client, owner: dict[str, str], done: dict) -> None:
    key = {"Idempotency-Key": "add-pt-1"}
    first = add(client, owner, done["task_id"], {"target_lang": "pt"}, **key)
    second = add(client, owner, done["task_id"], {"target_lang": "pt"}, **key)
    assert first.status_code == second.status_code == 200 and first.json()["task_id"] == second.json()["task_id"]
    task = wait_done(client, owner, first.json()["task_id"])
    assert task["status"] == "completed", task
    srt_text = download(client, task["result"]["subtitle_url"]).decode()  # the parent's srt, in Portuguese
    assert list(srt.parse(srt_text))
    conflict = add(client, owner, done["task_id"], {"target_lang": "ca"}, **key)
    assert_error(conflict, 409, "IDEMPOTENCY_KEY_REUSED")


def test_refusals(client: httpx.Client, accounts: Accounts, owner: dict[str, str], done: dict, talk: Path) -> None:
    _account, token = accounts.create()
    stranger = {"Authorization": f"Bearer {token}"}
    assert_error(add(client, stranger, done["task_id"], {"target_lang": "fr"}), 404, "TASK_NOT_FOUND")
    assert_error(add(client, {}, done["task_id"], {"target_lang": "fr"}), 401, "UNAUTHORIZED")
    assert_error(add(client, owner, "0" * 32, {"target_lang": "fr"}), 404, "TASK_NOT_FOUND")
    queued = submit(client, stranger, talk, target_lang="es", source_lang="en").json()["task_id"]
    conflict = add(client, stranger, queued, {"target_lang": "fr"})
    if conflict.status_code != 200:  # a very fast worker may have finished it already
        assert_error(conflict, 409, "CONFLICT")
    assert_error(add(client, owner, done["task_id"], {"target_lang": "xx"}), 400, "INVALID_LANG_CODE")
    assert_error(add(client, owner, done["task_id"], {}), 400, "INVALID_PARAMETER")
    assert_error(add(client, owner, done["task_id"], {"target_lang": "fr", "source_lang": "de"}), 400, "INVALID_PARAMETER")
    assert_error(add(client, owner, done["task_id"], {"target_lang": "fr", "dubbing_speed": 1.2}), 400, "INVALID_PARAMETER")
    assert_error(add(client, owner, done["task_id"], {"target_lang": "fr", "glossary_id": "nope"}), 400, "GLOSSARY_NOT_FOUND")
    private = add(client, owner, done["task_id"], {"target_lang": "fr", "callback_url": "http://127.0.0.1:9/hook"})
    assert_error(private, 400, "INVALID_URL")


def test_several_targets_on_one_submission_recognize_once(client: httpx.Client, owner: dict[str, str], talk: Path) -> None:
    response = submit(client, owner, talk, target_lang="es", source_lang="en", additional_target_langs="fr, it")
    assert response.status_code == 200, response.text
    body = response.json()
    extra = body["additional_tasks"]
    assert [t["target_lang"] for t in extra] == ["fr", "it"] and len({body["task_id"], *(t["task_id"] for t in extra)}) == 3
    parent = wait_done(client, owner, body["task_id"])
    assert parent["status"] == "completed", parent
    source = client.get(f"/v1/video/task/{body['task_id']}/transcript", headers=owner).json()["segments"]
    for added in extra:
        task, stages = wait_revision(client, owner, added["task_id"])
        assert task["status"] == "completed" and task["parent_task_id"] == body["task_id"], task
        assert not stages & {"extracting", "recognizing", "diarizing"}, stages
        transcript = client.get(f"/v1/video/task/{added['task_id']}/transcript", headers=owner).json()
        assert transcript["target_lang"] == added["target_lang"]
        assert [(s["id"], s["source"]) for s in transcript["segments"]] == [(s["id"], s["source"]) for s in source]


@pytest.mark.parametrize(
    ("extra", "status", "code"),
    [
        (",".join(["fr", "it", "pt", "ca", "de", "nl", "sv", "da", "pl", "cs", "ro"]), 400, "INVALID_PARAMETER"),  # 11
        ("fr,es", 400, "INVALID_PARAMETER"),  # the target_lang again
        ("fr,fr", 400, "INVALID_PARAMETER"),
        (" , ", 400, "INVALID_PARAMETER"),
        ("fr,xx", 400, "INVALID_LANG_CODE"),
    ],
)
def test_additional_targets_are_refused_before_anything_is_charged(
    client: httpx.Client, owner: dict[str, str], talk: Path, extra: str, status: int, code: str
) -> None:
    before = client.get("/v1/account", headers=owner).json()["usage"]
    response = submit(client, owner, talk, target_lang="es", source_lang="en", additional_target_langs=extra)
    assert_error(response, status, code)
    assert "additional_target_langs" in response.json()["message"]
    assert client.get("/v1/account", headers=owner).json()["usage"] == before
