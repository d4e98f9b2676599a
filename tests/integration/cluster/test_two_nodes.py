"""Two Ray nodes, outputs in S3: placement by node resource, a video job end to end, and the loss of a node.

The worker node (speech recognition and the job worker) is lost mid-job by
SIGKILL of its raylet; a fresh node with the same resource replaces it, as an
autoscaler would. The task must end completed or failed with a contract code
within a bound, never stuck, and the record must show the job was delivered
again to a different worker.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import psutil
import pytest
import redis
import srt

from core import keys
from core.errors import ERROR_TABLE, ErrorGroup
from tests.integration.cluster.conftest import APP, WORKER_NODE, ClusterApp, wait_ready
from tests.integration.conftest import Accounts
from tests.integration.test_video_http import download, submit, wait_done
from tests.support.media import make_video

pytestmark = [pytest.mark.serve, pytest.mark.models, pytest.mark.deep]  # a second Ray cluster: make test-deep

SPEECH = "The weather is nice today. We walk to the market and buy fresh bread and apples."
#: Long enough that speech recognition is still running when the node is killed.
LONG_SPEECH = " ".join([SPEECH] * 6)
NODE_LOSS_BOUND_S = 240
VIDEO_CODES = {str(code) for _status, code in ERROR_TABLE[ErrorGroup.VIDEO].values()}


@pytest.fixture(scope="module")
def videos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cluster-videos")
    make_video(folder / "short.mp4", container="mp4", speech_text=SPEECH)
    make_video(folder / "long.mp4", container="mp4", speech_text=LONG_SPEECH)
    return folder


@pytest.fixture
def client(cluster_app: ClusterApp) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=cluster_app.base_url, timeout=60) as c:
        yield c


@pytest.fixture
def auth(cluster_app: ClusterApp) -> dict[str, str]:
    _account, token = Accounts(cluster_app.redis_url).create()
    return {"Authorization": f"Bearer {token}"}


def task_record(app: ClusterApp, task_id: str) -> dict[str, Any]:
    """The stored task (fields the API does not show: attempts, worker, params)."""
    with redis.Redis.from_url(app.redis_url, decode_responses=True) as r:
        return {k: json.loads(v) for k, v in r.hgetall(keys.task(task_id)).items()}


def object_key(app: ClusterApp, link: str) -> str:
    """The bucket key a presigned link points at; checks the link is the object store's, signed."""
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == app.bucket.endpoint, link
    assert "X-Amz-Signature" in parse_qs(parts.query), link
    bucket, key = parts.path.lstrip("/").split("/", 1)
    assert bucket == app.bucket.name, link
    return key


def assert_output_from_store(app: ClusterApp, client: httpx.Client, task: dict) -> list[srt.Subtitle]:
    link = task["result"]["subtitle_url"]
    key = object_key(app, link)
    assert key.startswith(f"{task['task_id']}/") and key.endswith(".srt"), key
    downloaded = download(client, link)
    assert downloaded == app.bucket.read(key)
    cues = list(srt.parse(downloaded.decode()))
    assert cues and all(c.content.strip() for c in cues), downloaded
    return cues


def wait_stage(client: httpx.Client, headers: dict[str, str], task_id: str, stages: tuple[str, ...], timeout_s: float) -> dict:
    deadline = time.monotonic() + timeout_s
    task: dict = {}
    while time.monotonic() < deadline:
        task = client.get(f"/v1/video/task/{task_id}", headers=headers).json()
        if task["status"] == "processing" and task.get("stage") in stages:
            return task
        assert task["status"] in ("queued", "processing"), task
        time.sleep(0.2)
    raise AssertionError(f"task {task_id} never reached {stages}: {task}")


def node_ids_of(app: ClusterApp, deployment: str) -> set[str]:
    return {r["node_id"] for r in app.cluster.replicas(APP, deployment)}


@pytest.mark.timeout(600)
def test_deployments_are_placed_by_node_resource(cluster_app: ClusterApp) -> None:
    cluster = cluster_app.cluster
    head, worker = cluster.nodes[0].node_id(), cluster.nodes[1].node_id()
    assert head and worker and head != worker
    assert {n for n, s in cluster.node_states().items() if s["state"] == "ALIVE"} == {head, worker}
    assert node_ids_of(cluster_app, "ASR") == {worker}
    assert node_ids_of(cluster_app, "JobWorker") == {worker}
    for deployment in ("Ingress", "Translator", "Localizer"):
        assert node_ids_of(cluster_app, deployment) == {head}, deployment


@pytest.mark.timeout(600)
def test_video_job_output_is_served_from_the_object_store(
    cluster_app: ClusterApp, client: httpx.Client, auth: dict[str, str], videos: Path
) -> None:
    video = videos / "short.mp4"
    response = submit(client, auth, video, target_lang="es", source_lang="en", output_format="srt")
    assert response.status_code == 200, response.text
    task = wait_done(client, auth, response.json()["task_id"], timeout_s=300)
    assert task["status"] == "completed", task
    cues = assert_output_from_store(cluster_app, client, task)
    assert task["result"]["source_lang"] == "en" and len(cues) >= 1
    source = task_record(cluster_app, task["task_id"])["params"]["source"]
    assert cluster_app.bucket.read(source["key"]) == video.read_bytes()  # the worker node read the upload from S3 too


@pytest.mark.timeout(600)
def test_job_outlives_the_loss_of_its_worker_node(
    cluster_app: ClusterApp, client: httpx.Client, auth: dict[str, str], videos: Path
) -> None:
    cluster = cluster_app.cluster
    lost = cluster.nodes[1]
    lost_id = lost.node_id()
    assert lost_id is not None
    response = submit(client, auth, videos / "long.mp4", target_lang="es", source_lang="en", output_format="srt")
    assert response.status_code == 200, response.text
    task_id = response.json()["task_id"]
    wait_stage(client, auth, task_id, ("recognizing", "translating"), timeout_s=180)
    first_worker = task_record(cluster_app, task_id)["worker"]
    replicas = [psutil.Process(r["pid"]) for d in ("ASR", "JobWorker") for r in cluster.replicas(APP, d)]
    assert len(replicas) == 2

    lost.kill_raylet()
    killed_at = time.monotonic()
    replacement = cluster.add_node("worker2", num_cpus=1, resources=WORKER_NODE)  # as an autoscaler would
    replaced_s = time.monotonic() - killed_at
    assert lost.proc.wait(30) != 0  # `ray start --block` saw its raylet die and stopped the node
    _gone, alive = psutil.wait_procs(replicas, timeout=30)
    assert not alive, alive  # the node's replicas went with it

    task = wait_done(client, auth, task_id, timeout_s=NODE_LOSS_BOUND_S - (time.monotonic() - killed_at))
    settled_s = time.monotonic() - killed_at
    record = task_record(cluster_app, task_id)
    print(f"\nnode lost: replacement up after {replaced_s:.0f} s, task {task['status']} after {settled_s:.0f} s, "
          f"attempts={record['attempts']}")  # fmt: skip
    assert task["status"] in ("completed", "failed"), task
    assert int(record["attempts"]) >= 2 and record["worker"] != first_worker, record  # delivered again, elsewhere
    if task["status"] == "failed":
        assert task["error"]["code"] in VIDEO_CODES and task["error"]["message"], task
    else:
        assert_output_from_store(cluster_app, client, task)

    assert cluster.node_state(lost_id) == "DEAD"
    wait_ready(cluster, cluster_app.base_url, timeout_s=180)
    assert node_ids_of(cluster_app, "ASR") == {replacement.node_id()}
    assert node_ids_of(cluster_app, "JobWorker") == {replacement.node_id()}
