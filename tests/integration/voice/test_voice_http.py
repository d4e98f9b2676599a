"""``/v1/voice/clone``: real sample checks and fits through the Serve app (every code of the voice table)."""

from __future__ import annotations

import hashlib
import hmac
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Accounts
from tests.support.http_server import loopback_server
from tests.support.tiers import sweep

pytestmark = [pytest.mark.serve, pytest.mark.models]


def clone(client: httpx.Client, headers: dict[str, str], sample: Path | None, **fields: Any) -> httpx.Response:
    data = {"voice_name": f"voice-{time.monotonic_ns()}", "lang": "en", **{k: str(v).lower() if isinstance(v, bool) else v
                                                                          for k, v in fields.items()}}  # fmt: skip
    files = {"sample": (sample.name, sample.read_bytes(), "application/octet-stream")} if sample else None
    return client.post("/v1/voice/clone", data=data, files=files, headers=headers, timeout=300)


def code(response: httpx.Response) -> tuple[int, Any]:
    return response.status_code, response.json().get("code")


def test_sync_clone_is_ready_with_a_score_and_listed(
    client: httpx.Client, auth: dict[str, str], samples: dict[str, Path]
) -> None:
    response = clone(client, auth, samples["wav"], voice_name="Narrator", description="calm reader")
    assert response.status_code == 200, response.text
    voice = response.json()
    assert voice["status"] == "ready" and voice["voice_id"].startswith("voice_")
    assert 0.0 < voice["quality_score"] <= 1.0
    assert 19.0 <= voice["sample_duration"] <= 21.0
    assert voice["gender"] == "male"  # estimated: the speaker is a man
    assert voice["description"] == "calm reader" and voice["lang"] == "en"
    listed = client.get("/v1/voice/clone", headers=auth).json()
    assert listed["total"] == 1 and listed["quota"] == 10 and listed["used"] == 1
    assert listed["voices"][0]["voice_id"] == voice["voice_id"]
    one = client.get(f"/v1/voice/clone/{voice['voice_id']}", headers=auth).json()
    assert one == voice


@pytest.mark.parametrize("fmt", sweep(["mp3", "flac", "m4a", "ogg"], keep={"mp3"}))
def test_every_accepted_format_is_read_by_content(
    client: httpx.Client, auth: dict[str, str], samples: dict[str, Path], fmt: str, tmp_path: Path
) -> None:
    renamed = tmp_path / "sample.bin"  # the name says nothing: the content decides
    renamed.write_bytes(samples[fmt].read_bytes())
    response = clone(client, auth, renamed, gender="male")
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "ready"


@pytest.mark.parametrize(
    ("name", "status", "contract_code"),
    [
        ("short", 400, 1007),
        ("low_rate", 400, 1001),
        ("noisy", 400, 1008),
        ("music", 400, 1009),
        ("webm", 415, 3002),
        ("text", 415, 3002),
    ],
)
def test_bad_samples_are_refused_with_their_codes(
    client: httpx.Client, auth: dict[str, str], samples: dict[str, Path], name: str, status: int, contract_code: int
) -> None:
    response = clone(client, auth, samples[name])
    assert code(response) == (status, contract_code), response.text
    assert client.get("/v1/voice/clone", headers=auth).json()["total"] == 0  # nothing kept, no slot used


def test_field_errors(client: httpx.Client, auth: dict[str, str], samples: dict[str, Path]) -> None:
    assert code(clone(client, auth, samples["wav"], voice_name="x" * 65)) == (400, 1001)
    assert code(clone(client, auth, samples["wav"], lang="xx")) == (400, 1001)
    assert code(clone(client, auth, samples["wav"], description="d" * 201)) == (400, 1001)
    assert code(clone(client, auth, samples["wav"], gender="robot")) == (400, 1001)
    assert code(clone(client, auth, None)) == (400, 1001)  # no sample at all
    unauthenticated = clone(client, {}, samples["wav"])
    assert code(unauthenticated) == (401, 2001)


def test_names_are_unique_and_rename_keeps_them_so(client: httpx.Client, auth: dict[str, str], samples: dict[str, Path]) -> None:
    first = clone(client, auth, samples["wav"], voice_name="Alpha", gender="male").json()
    assert code(clone(client, auth, samples["wav"], voice_name="alpha")) == (400, 1006)  # names fold case
    second = clone(client, auth, samples["wav"], voice_name="Beta", gender="male").json()
    clash = client.put(f"/v1/voice/clone/{second['voice_id']}", json={"voice_name": "ALPHA"}, headers=auth)
    assert code(clash) == (400, 1006)
    renamed = client.put(f"/v1/voice/clone/{first['voice_id']}", json={"voice_name": "Gamma", "description": "new"}, headers=auth)
    assert renamed.status_code == 200 and renamed.json()["voice_name"] == "Gamma" and renamed.json()["description"] == "new"
    assert renamed.json()["quality_score"] == first["quality_score"]  # only name and description change
    assert clone(client, auth, samples["wav"], voice_name="Alpha", gender="male").status_code == 200  # the old name is free
    assert code(client.put(f"/v1/voice/clone/{first['voice_id']}", json={"lang": "es"}, headers=auth)) == (400, 1001)


def test_quota_fills_and_deletion_frees_a_slot(client: httpx.Client, accounts: Accounts, samples: dict[str, Path]) -> None:
    _account, token = accounts.create(voice_slots=2)
    headers = {"Authorization": f"Bearer {token}"}
    made = [clone(client, headers, samples["wav"], gender="male").json() for _ in range(2)]
    assert all(v["status"] == "ready" for v in made)
    assert code(clone(client, headers, samples["wav"], gender="male")) == (403, 2004)
    deleted = client.delete(f"/v1/voice/clone/{made[0]['voice_id']}", headers=headers)
    assert deleted.json() == {"voice_id": made[0]["voice_id"], "deleted": True}
    assert code(client.get(f"/v1/voice/clone/{made[0]['voice_id']}", headers=headers)) == (404, 2005)
    assert code(client.delete(f"/v1/voice/clone/{made[0]['voice_id']}", headers=headers)) == (404, 2005)
    tts = client.post("/v1/tts", json={"text": "Hello there.", "voice": made[0]["voice_id"]}, headers=headers)
    assert code(tts) == (404, 2005)
    assert clone(client, headers, samples["wav"], gender="male").status_code == 200


def test_other_accounts_voices_are_forbidden(client: httpx.Client, accounts: Accounts, samples: dict[str, Path]) -> None:
    _a, token_a = accounts.create()
    _b, token_b = accounts.create()
    owner, intruder = {"Authorization": f"Bearer {token_a}"}, {"Authorization": f"Bearer {token_b}"}
    voice = clone(client, owner, samples["wav"], gender="male").json()
    path = f"/v1/voice/clone/{voice['voice_id']}"
    assert code(client.get(path, headers=intruder)) == (403, 2003)
    assert code(client.put(path, json={"voice_name": "mine"}, headers=intruder)) == (403, 2003)
    assert code(client.delete(path, headers=intruder)) == (403, 2003)
    assert code(client.post("/v1/tts", json={"text": "Hi.", "voice": voice["voice_id"]}, headers=intruder)) == (403, 2003)
    assert client.get("/v1/voice/clone", headers=intruder).json()["total"] == 0


def test_plan_quota_gives_4002(client: httpx.Client, accounts: Accounts, samples: dict[str, Path]) -> None:
    _account, token = accounts.create(quotas={"voice_clones": 1})
    headers = {"Authorization": f"Bearer {token}"}
    assert clone(client, headers, samples["wav"], gender="male").status_code == 200
    assert code(clone(client, headers, samples["wav"], gender="male")) == (456, 4002)


def test_list_filters_and_cursor_pagination(client: httpx.Client, auth: dict[str, str], samples: dict[str, Path]) -> None:
    ids = [clone(client, auth, samples["wav"], gender="male", lang=lang).json()["voice_id"] for lang in ("en", "es", "en")]
    english = client.get("/v1/voice/clone", params={"lang": "en"}, headers=auth).json()
    assert english["total"] == 2 and {v["lang"] for v in english["voices"]} == {"en"}
    assert client.get("/v1/voice/clone", params={"status": "processing"}, headers=auth).json()["total"] == 0
    seen, cursor = [], None
    while True:
        page = client.get("/v1/voice/clone", params={"limit": 2, **({"cursor": cursor} if cursor else {})}, headers=auth).json()
        seen += [v["voice_id"] for v in page["voices"]]
        cursor = page.get("next_cursor")
        if not cursor:
            break
    assert seen == ids  # oldest first, every voice once
    assert code(client.get("/v1/voice/clone", params={"cursor": "???"}, headers=auth)) == (400, 1001)
    assert code(client.get("/v1/voice/clone", params={"status": "done"}, headers=auth)) == (400, 1001)


def test_async_clone_with_signed_callback_and_url_sample(
    client: httpx.Client, accounts: Accounts, samples: dict[str, Path], tmp_path: Path
) -> None:
    account, token = accounts.create()
    headers = {"Authorization": f"Bearer {token}"}
    served = tmp_path / "served"
    served.mkdir()
    (served / "me.flac").write_bytes(samples["flac"].read_bytes())
    with loopback_server(served) as server:
        callback = server.url("/voice-hook")
        body = {"sample": server.url("/files/me.flac"), "voice_name": "Async", "lang": "en", "callback_url": callback}
        response = client.post("/v1/voice/clone", json=body, headers=headers, timeout=120)
        assert response.status_code == 200, response.text
        voice = response.json()
        assert voice["status"] == "processing" and "quality_score" not in voice
        early = client.post("/v1/tts", json={"text": "Too early.", "voice": voice["voice_id"]}, headers=headers)
        if early.status_code != 200:  # unless the training already finished, a processing voice cannot speak
            assert code(early) == (409, 1003)
        assert server.event.wait(240), "no callback arrived"
        hook = server.received[0]
        expected = "sha256=" + hmac.new(account.signing_secret.encode(), callback.encode(), hashlib.sha256).hexdigest()
        assert hook.headers["X-Signature"] == expected
        payload = hook.json()
        assert payload["voice_id"] == voice["voice_id"] and payload["status"] == "ready"
        assert set(payload) >= {"voice_id", "voice_name", "lang", "quality_score", "status", "sample_duration", "created_at",
                                "completed_at"}  # fmt: skip
        ready = client.get(f"/v1/voice/clone/{voice['voice_id']}", headers=headers).json()
        assert ready["status"] == "ready" and ready["quality_score"] == payload["quality_score"]
        missing = client.post("/v1/voice/clone", json={**body, "sample": server.url("/files/none.wav"), "voice_name": "x"},
                              headers=headers)  # fmt: skip
        assert code(missing) == (400, 1001)


@pytest.mark.deep
def test_worker_killed_mid_training_still_ends(client: httpx.Client, auth: dict[str, str], samples: dict[str, Path]) -> None:
    import ray

    from tests.integration.faults.test_faults import worker_actor
    from tests.support.services import wait_http_ok

    response = clone(client, auth, samples["wav"], gender="male", enhance_quality=True)
    assert response.status_code == 200, response.text
    voice_id = response.json()["voice_id"]
    assert response.json()["status"] == "processing"
    time.sleep(2)  # the worker has claimed the training
    ray.kill(worker_actor(), no_restart=True)  # Serve starts a new replica; the job is reclaimed after 5 s
    deadline = time.monotonic() + 300
    status = "processing"
    while time.monotonic() < deadline and status == "processing":
        time.sleep(1)
        status = client.get(f"/v1/voice/clone/{voice_id}", headers=auth).json()["status"]
    assert status in ("ready", "failed")
    voice = client.get(f"/v1/voice/clone/{voice_id}", headers=auth).json()
    assert ("quality_score" in voice) if status == "ready" else voice["error"]["code"] == "3003"
    wait_http_ok(f"{client.base_url}/readyz", 120)
