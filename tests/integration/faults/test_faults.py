"""Fault injection on the real Serve app and real Redis: no accepted task is lost or left stuck.

Faults: the job worker's replica is killed mid-job; Redis is killed (SIGKILL)
and restarted from its append-only file with tasks queued and running; the
whole database is flushed and work submitted again; a callback receiver is
down for two minutes. Every task must end completed or cleanly failed, and
the callback must arrive after the receiver is back, signed, exactly once.
The module prints a table: fault, tasks submitted, tasks lost, worst time a
task sat in one state.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import Accounts
from tests.integration.test_video_http import submit
from tests.support.http_server import loopback_server
from tests.support.media import make_video
from tests.support.services import RedisServer, free_port, wait_http_ok

pytestmark = [pytest.mark.serve, pytest.mark.models]

TERMINAL = ("completed", "failed", "expired")
RECEIVER_DOWN_S = 120.0
SPEECH = "The library opens at nine. Please return your books before the end of the month."


@dataclasses.dataclass
class FaultRecord:
    fault: str
    submitted: int = 0
    lost: int = 0
    worst_stuck_s: float = 0.0
    outcome: str = ""


REPORT: list[FaultRecord] = []


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fault-media")
    make_video(folder / "short.mp4", container="mp4", speech_text=SPEECH)
    make_video(folder / "long.mp4", container="mp4", speech_text=" ".join([SPEECH] * 4))
    return folder


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    print("\nfault injection:")
    print(f"{'fault':52} {'tasks':>5} {'lost':>4} {'worst stuck s':>13}  outcome")
    for r in REPORT:
        print(f"{r.fault:52} {r.submitted:5d} {r.lost:4d} {r.worst_stuck_s:13.1f}  {r.outcome}")


class Watcher:
    """Polls tasks until they end; tracks how long each sat in one (status, stage, progress)."""

    def __init__(self, client: httpx.Client, headers: dict[str, str]) -> None:
        self.client = client
        self.headers = headers

    def wait(self, task_ids: list[str], timeout_s: float) -> tuple[dict[str, dict], float]:
        final: dict[str, dict] = {}
        last_change = {t: (None, time.monotonic()) for t in task_ids}
        worst = 0.0
        deadline = time.monotonic() + timeout_s
        while len(final) < len(task_ids) and time.monotonic() < deadline:
            for task_id in task_ids:
                if task_id in final:
                    continue
                try:
                    response = self.client.get(f"/v1/video/task/{task_id}", headers=self.headers, timeout=10)
                except httpx.HTTPError:
                    continue  # the service may be briefly unreachable during a fault
                if response.status_code != 200:
                    continue
                task = response.json()
                state = (task["status"], task.get("stage"), task["progress"])
                seen, _ = last_change[task_id]
                if state != seen:
                    last_change[task_id] = (state, time.monotonic())
                worst = max(worst, time.monotonic() - last_change[task_id][1])
                if task["status"] in TERMINAL:
                    final[task_id] = task
            time.sleep(0.5)
        return final, worst


def submit_ok(client: httpx.Client, headers: dict[str, str], video: Path, **fields: object) -> str:
    for _ in range(60):  # the ingress may answer 503 while Redis restarts; a client retries
        try:
            response = submit(client, headers, video, target_lang="es", source_lang="en", **fields)
        except httpx.HTTPError:
            time.sleep(1)
            continue
        if response.status_code == 200:
            return str(response.json()["task_id"])
        assert response.status_code in (500, 503), response.text
        time.sleep(1)
    raise AssertionError("submission never accepted")


def worker_actor() -> object:
    import ray

    names = [a for a in ray.util.list_named_actors(all_namespaces=True) if "JobWorker" in a["name"]]
    assert len(names) == 1, names
    return ray.get_actor(names[0]["name"], namespace=names[0]["namespace"])


@pytest.fixture(scope="module")
def receiver_down(serve_base_url: str, serve_redis_url: str, media: Path) -> Iterator[dict]:
    """A task whose callback URL answers nothing; the receiver starts 2 minutes after the task ended."""
    account, token = Accounts(serve_redis_url).create()
    headers = {"Authorization": f"Bearer {token}"}
    port = free_port()
    callback = f"http://localhost:{port}/hook"
    with httpx.Client(base_url=serve_base_url, timeout=60) as client:
        task_id = submit_ok(client, headers, media / "short.mp4", callback_url=callback)
        final, _ = Watcher(client, headers).wait([task_id], 300)
    yield {"task": final[task_id], "ended": time.monotonic(), "port": port, "url": callback, "account": account}


def test_worker_killed_mid_job(client: httpx.Client, accounts: Accounts, media: Path, receiver_down: dict) -> None:
    import ray

    _account, token = accounts.create()
    headers = {"Authorization": f"Bearer {token}"}
    task_id = submit_ok(client, headers, media / "long.mp4")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        task = client.get(f"/v1/video/task/{task_id}", headers=headers).json()
        if task["status"] == "processing" and task.get("stage") in ("extracting", "recognizing", "translating"):
            break
        time.sleep(0.2)
    ray.kill(worker_actor(), no_restart=True)  # Serve starts a new replica; the job is reclaimed after 5 s
    final, worst = Watcher(client, headers).wait([task_id], 300)
    record = FaultRecord("worker replica killed mid-job", 1, 1 - len(final), worst)
    record.outcome = final.get(task_id, {}).get("status", "stuck")
    REPORT.append(record)
    assert final[task_id]["status"] in ("completed", "failed"), final
    if final[task_id]["status"] == "failed":
        assert final[task_id]["error"]["code"] == "INTERNAL_ERROR"
    wait_http_ok(f"{client.base_url}/readyz", 120)


@pytest.mark.deep
def test_redis_killed_and_restarted_mid_queue(
    client: httpx.Client, accounts: Accounts, media: Path, redis_service: RedisServer, receiver_down: dict
) -> None:
    _account, token = accounts.create()
    headers = {"Authorization": f"Bearer {token}"}
    task_ids = [submit_ok(client, headers, media / "short.mp4") for _ in range(4)]
    time.sleep(3)  # one running, the rest queued
    redis_service.stop(kill=True)
    time.sleep(5)
    redis_service.start()  # same port, state from the append-only file
    final, worst = Watcher(client, headers).wait(task_ids, 420)
    lost = len(task_ids) - len(final)
    statuses = sorted(t["status"] for t in final.values())
    REPORT.append(FaultRecord("Redis SIGKILL + restart (AOF), 4 tasks in flight", 4, lost, worst, ", ".join(statuses)))
    assert lost == 0
    assert all(t["status"] == "completed" for t in final.values()), final
    wait_http_ok(f"{client.base_url}/readyz", 120)


@pytest.mark.deep
def test_callback_arrives_once_after_the_receiver_was_down(receiver_down: dict, tmp_path: Path) -> None:
    """Runs after the worker and Redis faults, so the two minutes of downtime overlap them (and before FLUSHALL,
    which would delete the pending delivery along with everything else)."""
    task = receiver_down["task"]
    assert task["status"] == "completed", task
    time.sleep(max(0.0, RECEIVER_DOWN_S - (time.monotonic() - receiver_down["ended"])))
    with loopback_server(tmp_path, port=receiver_down["port"]) as receiver:  # the port stayed free meanwhile
        came_back = time.monotonic()
        assert receiver.event.wait(30), "no callback after the receiver came back"
        delay = time.monotonic() - came_back
        time.sleep(10)  # nothing more arrives
    assert len(receiver.received) == 1, receiver.received
    hook = receiver.received[0]
    secret = receiver_down["account"].signing_secret.encode()
    assert hook.headers["X-Signature"] == "sha256=" + hmac.new(secret, receiver_down["url"].encode(), hashlib.sha256).hexdigest()
    assert hook.json()["task_id"] == task["task_id"] and hook.json()["status"] == "completed"
    REPORT.append(FaultRecord(f"callback receiver down {RECEIVER_DOWN_S:.0f} s", 1, 0, delay, "delivered once"))


def test_flushall_then_submit(client: httpx.Client, accounts: Accounts, media: Path, serve_redis_url: str) -> None:
    import redis

    with redis.Redis.from_url(serve_redis_url) as sync:
        sync.flushall()  # the job stream and its consumer group are gone
    _account, token = accounts.create()
    headers = {"Authorization": f"Bearer {token}"}
    task_id = submit_ok(client, headers, media / "short.mp4")
    final, worst = Watcher(client, headers).wait([task_id], 180)
    REPORT.append(FaultRecord("FLUSHALL, then submit", 1, 1 - len(final), worst, final.get(task_id, {}).get("status", "stuck")))
    assert final[task_id]["status"] == "completed", final
    ready = client.get("/readyz").json()
    assert ready["status"] == "ready", ready
