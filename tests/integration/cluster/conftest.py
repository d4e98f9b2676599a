"""The app deployed the production way on a two-node Ray cluster, with outputs in an S3-compatible store.

The head node runs the HTTP edge (Ingress, Translator, Localizer); a second
node, the only one with the ``worker_node`` resource, runs the speech
recognition and the job worker. Files live in moto's S3 server, Redis is the
session's redis-server (a database of its own), and the Serve config is
configs/local.yaml's ``mediatrans`` application with the rule-based
translator, deployed with ``serve deploy``.
"""

from __future__ import annotations

import copy
import dataclasses
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
import redis
import yaml

from tests.support.ray_cluster import RayCluster, free_ports
from tests.support.services import RedisServer, s3_server

ROOT = Path(__file__).resolve().parents[3]
LOCAL_CONFIG = ROOT / "configs" / "local.yaml"
APP = "mediatrans"
#: Capabilities the video path does not use: left out of the application (AppArgs makes them optional).
UNUSED_CAPABILITIES = ("grammar", "tts", "voice_cloner", "diarizer")
#: The deployments the remaining arguments bind, and the node resource each one is placed by.
PLACEMENT = {
    "Ingress": "head_node",
    "Translator": "head_node",
    "Localizer": "head_node",
    "ASR": "worker_node",
    "JobWorker": "worker_node",
}
WORKER_NODE = {"worker_node": 1}
#: A claimed job whose worker went silent this long is taken over (production: 60 s).
RECLAIM_AFTER_S = 10
HEARTBEAT_S = 2


@dataclasses.dataclass(frozen=True)
class S3Bucket:
    endpoint: str
    name: str
    client: Any

    def settings(self) -> dict[str, str]:
        """``storage.s3`` of the app's arguments."""
        return {
            "endpoint_url": self.endpoint,
            "bucket": self.name,
            "region": "us-east-1",
            "access_key": "test",
            "secret_key": "test",
        }

    def read(self, key: str) -> bytes:
        body: bytes = self.client.get_object(Bucket=self.name, Key=key)["Body"].read()
        return body


@dataclasses.dataclass(frozen=True)
class ClusterApp:
    base_url: str
    redis_url: str
    bucket: S3Bucket
    cluster: RayCluster


@pytest.fixture(scope="module")
def s3_bucket(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Bucket]:
    with s3_server(tmp_path_factory.mktemp("s3")) as endpoint:
        client = boto3.session.Session().client(
            "s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test"
        )
        client.create_bucket(Bucket="mediatrans-outputs")
        yield S3Bucket(endpoint, "mediatrans-outputs", client)


@pytest.fixture(scope="module")
def cluster_redis_url(redis_service: RedisServer) -> str:
    """Database 2 of the session's redis-server, flushed: no other Serve app of the session reads its job stream."""
    url = redis_service.url.rsplit("/", 1)[0] + "/2"
    with redis.Redis.from_url(url) as client:
        client.flushdb()
    return url


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[RayCluster]:
    """A head node (2 CPUs) and one worker node (1 CPU, ``worker_node``), torn down by killing what they started."""
    root = Path(tempfile.mkdtemp(prefix="rc-", dir="/tmp"))  # short: Ray's socket paths live under it
    cluster = RayCluster(root)
    try:
        cluster.start_head(num_cpus=2, resources={"head_node": 1})
        cluster.add_node("worker1", num_cpus=1, resources=WORKER_NODE)
        yield cluster
    finally:
        cluster.shutdown()
        shutil.rmtree(root, ignore_errors=True)


def serve_config(*, http_port: int, redis_url: str, bucket: S3Bucket, work_dir: Path) -> dict[str, Any]:
    """configs/local.yaml reduced to the video path, with S3 storage and deployments placed by node resource."""
    config = yaml.safe_load(LOCAL_CONFIG.read_text())
    app = copy.deepcopy(next(a for a in config["applications"] if a["name"] == APP))
    local = app["args"]
    args = {k: v for k, v in local.items() if k not in UNUSED_CAPABILITIES}
    apertium = next(e for e in local["translator"]["engines"] if e["engine"] == "apertium")
    args.update(
        translator=apertium,  # the rule-based engine alone: no LLM application to deploy
        redis_url=redis_url,
        public_base_url=f"http://127.0.0.1:{http_port}",
        storage={"backend": "s3", "s3": bucket.settings()},
        worker={**local["worker"], "work_dir": str(work_dir), "reclaim_after_s": RECLAIM_AFTER_S, "heartbeat_s": HEARTBEAT_S},
    )
    deployments = [d for d in app["deployments"] if d["name"] in PLACEMENT]
    for deployment in deployments:
        options = deployment.setdefault("ray_actor_options", {})
        options["resources"] = {PLACEMENT[deployment["name"]]: 0.01}
    app.update(args=args, deployments=deployments)
    return {**config, "http_options": {**config["http_options"], "port": http_port}, "applications": [app]}


@pytest.fixture(scope="module")
def cluster_app(
    ray_cluster: RayCluster, s3_bucket: S3Bucket, cluster_redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> ClusterApp:
    (http_port,) = free_ports(1)
    work = tmp_path_factory.mktemp("cluster-work")
    config = serve_config(http_port=http_port, redis_url=cluster_redis_url, bucket=s3_bucket, work_dir=work)
    path = ray_cluster.root / "serve.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    ray_cluster.serve_deploy(path)
    base_url = f"http://127.0.0.1:{http_port}"
    wait_ready(ray_cluster, base_url, timeout_s=300)
    return ClusterApp(base_url, cluster_redis_url, s3_bucket, ray_cluster)


def wait_ready(cluster: RayCluster, base_url: str, timeout_s: float) -> None:
    """Until ``/readyz`` answers 200; fails at once when Serve reports the deployment failed."""
    deadline = time.monotonic() + timeout_s
    last: object = None
    while time.monotonic() < deadline:
        try:
            response = httpx.get(f"{base_url}/readyz", timeout=10)
            if response.status_code == 200:
                return
            last = response.text
        except httpx.HTTPError as exc:
            last = exc
        app = cluster.serve_application(APP)
        if app.get("status") == "DEPLOY_FAILED":
            raise RuntimeError(f"deployment failed: {app.get('message')}")
        time.sleep(1)
    raise TimeoutError(f"{base_url}/readyz not ready after {timeout_s}s: {last}")
