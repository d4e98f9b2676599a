"""Metrics on Ray's Prometheus endpoint: after real traffic every family of ``core.metrics`` is there
with its labels, the Grafana dashboard's queries name only metrics that exist, and a real Prometheus
(Debian's package) scrapes the local cluster with the shipped scrape config."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from core.metrics import FAMILIES, LLM_FAMILIES, EngineObserver, exported_names
from engines.errors import EngineFailure
from engines.translation.apertium.engine import ApertiumEngine
from engines.translation.base import TranslationRequest, TranslationResult, TranslatorEngine
from engines.translation.safe import SafeTranslator
from tests.integration.conftest import Accounts
from tests.support import dashboard, speech
from tests.support.http_server import loopback_server
from tests.support.media import make_video
from tests.support.services import free_port

pytestmark = [pytest.mark.serve, pytest.mark.models]

ROOT = Path(__file__).resolve().parents[2]
SCRAPE_CONFIG = ROOT / "cluster" / "prometheus" / "prometheus.yml"
Samples = dict[str, list[tuple[dict[str, str], float]]]


def metrics_endpoint() -> str:
    import ray

    node = next(n for n in ray.nodes() if n["Alive"])
    return f"{node['NodeManagerAddress']}:{node['MetricsExportPort']}"


def scrape(endpoint: str) -> Samples:
    text = httpx.get(f"http://{endpoint}/metrics", timeout=10).text
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return samples


def scrape_until(endpoint: str, names: frozenset[str], timeout_s: float = 90) -> Samples:
    """Ray exports on a period: scrape until every name in ``names`` is there."""
    deadline = time.monotonic() + timeout_s
    while True:
        samples = scrape(endpoint)
        missing = names - samples.keys()
        if not missing:
            return samples
        if time.monotonic() > deadline:
            raise AssertionError(f"not exported after {timeout_s:.0f} s: {sorted(missing)}")
        time.sleep(3)


class _Refusing(TranslatorEngine):
    """An engine whose backend is down (every call fails), in front of Apertium."""

    name = "refusing"

    def start(self) -> None:
        """Nothing to start: its backend is down."""

    def pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset({("en", "es")})

    def translate(self, request: TranslationRequest) -> TranslationResult:
        raise EngineFailure("connection refused")


def fall_back_once() -> TranslationResult:
    """A real fallback in this process (a Ray driver: its metrics reach the same endpoint)."""
    apertium = ApertiumEngine()
    apertium.start()
    try:
        request = TranslationRequest(texts=("The market opens at nine.",), source_lang="en", target_lang="es")
        return SafeTranslator(_Refusing(), fallback=apertium, observer=EngineObserver("translation")).translate(request)
    finally:
        apertium.shutdown()


@pytest.fixture(scope="module")
def traffic(serve_base_url: str, serve_redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """One pass over every instrumented path; returns what it saw for the assertions."""
    folder = tmp_path_factory.mktemp("metrics-traffic")
    with httpx.Client(base_url=serve_base_url, timeout=60, headers={"X-Forwarded-For": "198.18.200.7"}) as client:
        yield drive(client, Accounts(serve_redis_url), folder)


def drive(client: httpx.Client, accounts: Accounts, folder: Path) -> dict:
    account, token = accounts.create()
    auth = {"Authorization": f"Bearer {token}"}
    seen: dict = {"account": account.id}
    assert client.get("/v1/languages").status_code == 200
    assert client.get("/v1/account", headers=auth).status_code == 200
    seen["not_found"] = client.get("/v1/video/task/nope", headers=auth).json()["code"]
    game = {"text": "Press Start to play.", "content_type": "ui", "source_lang": "en", "target_langs": ["es"]}
    assert client.post("/v1/game/localization", json=game, headers=auth).status_code == 200
    assert (
        client.post("/v1/grammar", json={"text": "She go to school every days.", "lang": "en-US"}, headers=auth).status_code
        == 200
    )
    _stingy, stingy_token = accounts.create(quotas={"grammar_characters": 1})
    refused = client.post("/v1/grammar", json={"text": "Hello there."}, headers={"Authorization": f"Bearer {stingy_token}"})
    assert refused.status_code == 456  # the grammar group's quota status (contract)
    seen["fallback_engine"] = fall_back_once().engine
    sample, _ = speech.split_speaker("two-cities", 20.0, sample_rate=24_000)
    wav = speech.write_wav(folder / "sample.wav", sample, 24_000)
    cloned = client.post(
        "/v1/voice/clone", data={"voice_name": "Metrics", "lang": "en", "gender": "male"}, headers=auth, timeout=300,
        files={"sample": (wav.name, wav.read_bytes(), "audio/wav")},
    )  # fmt: skip
    assert cloned.status_code == 200, cloned.text
    video = make_video(folder / "talk.mp4", container="mp4", speech_text="We walk to the market and buy fresh bread.")
    with loopback_server(folder) as receiver:
        submitted = client.post(
            "/v1/video/translate", headers=auth,
            data={"target_lang": "es", "callback_url": receiver.url("/hook")},
            files={"file": (video.name, video.read_bytes(), "video/mp4")},
        )  # fmt: skip
        assert submitted.status_code == 200, submitted.text
        task_id = submitted.json()["task_id"]
        deadline = time.monotonic() + 240
        while client.get(f"/v1/video/task/{task_id}", headers=auth).json()["status"] in ("queued", "processing"):
            assert time.monotonic() < deadline, "video task not finished"
            time.sleep(0.5)
        assert receiver.event.wait(60), "no callback"
    return seen


def test_every_family_is_exported_after_traffic(traffic: dict) -> None:
    endpoint = metrics_endpoint()
    samples = scrape_until(endpoint, exported_names())
    for family in FAMILIES:
        for name in family.exported():
            labelled = [labels for labels, _ in samples[name]]
            assert all(set(family.tags) <= labels.keys() for labels in labelled), (name, labelled[:2])

    def value(name: str, **labels: str) -> float:
        return sum(v for got, v in samples[name] if all(got.get(k) == want for k, want in labels.items()))

    # Names appear with their first export; the traffic's last requests may reach the next one.
    deadline = time.monotonic() + 60
    while value("ray_mediatrans_account_requests_total", account=traffic["account"]) < 5 and time.monotonic() < deadline:
        time.sleep(3)
        samples = scrape(endpoint)

    assert value("ray_mediatrans_http_requests_total", group="languages", status="200", code="none") >= 1
    assert value("ray_mediatrans_http_requests_total", group="video", status="404", code=str(traffic["not_found"])) >= 1
    assert value("ray_mediatrans_http_requests_total", group="grammar", status="456") >= 1
    assert value("ray_mediatrans_account_requests_total", account=traffic["account"]) >= 5
    assert value("ray_mediatrans_quota_charged_total", account=traffic["account"], metric="game_characters") >= 1
    assert value("ray_mediatrans_quota_refused_total", metric="grammar_characters") >= 1
    assert value("ray_mediatrans_tasks_finished_total", kind="video", state="completed") >= 1
    assert value("ray_mediatrans_video_stage_seconds_count", stage="recognizing") >= 1
    assert value("ray_mediatrans_engine_latency_seconds_count", capability="translation", pair="en-es") >= 1
    assert traffic["fallback_engine"] == "apertium"
    assert value("ray_mediatrans_engine_fallbacks_total", engine="refusing", pair="en-es", reason="failed") >= 1
    assert value("ray_mediatrans_webhook_deliveries_total", outcome="delivered") >= 1
    assert value("ray_mediatrans_webhook_delivery_lag_seconds_count") >= 1
    assert value("ray_mediatrans_voice_trainings_total", outcome="ready") >= 1
    assert value("ray_mediatrans_grammar_check_seconds_count", language="en-US") >= 1
    assert {labels["state"] for labels, _ in samples["ray_mediatrans_tasks"]} >= {"queued", "processing"}


def test_dashboard_queries_name_metrics_that_exist(traffic: dict) -> None:
    assert len(dashboard.expressions()) >= 20
    names = dashboard.metric_names() - exported_names(LLM_FAMILIES)  # the LLM server's: tests/integration/llm
    assert any(n.startswith("ray_serve_") for n in names) and any(n.startswith("ray_mediatrans_") for n in names)
    scrape_until(metrics_endpoint(), frozenset(names))  # the file being current: tests/unit/test_observability_configs.py


@pytest.mark.skipif(shutil.which("prometheus") is None, reason="Debian's prometheus package is installed by make setup")
def test_prometheus_scrapes_the_cluster_with_the_shipped_config(traffic: dict, tmp_path: Path) -> None:
    config = yaml.safe_load(SCRAPE_CONFIG.read_text())
    job = config["scrape_configs"][0]
    sd_file = tmp_path / "targets.json"  # the shipped file names Ray's default SD file; this cluster's node is used here
    sd_file.write_text(json.dumps([{"labels": {"job": "ray"}, "targets": [metrics_endpoint()]}]))
    job["file_sd_configs"][0]["files"] = [str(sd_file)]
    config["global"]["scrape_interval"] = "2s"
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    server = subprocess.Popen(
        ["prometheus", f"--config.file={tmp_path / 'prometheus.yml'}", f"--storage.tsdb.path={tmp_path / 'data'}",
         f"--web.listen-address=127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                reply = httpx.get(
                    f"http://127.0.0.1:{port}/api/v1/query", params={"query": "sum(ray_mediatrans_http_requests_total)"}
                ).json()
                if reply["data"]["result"] and float(reply["data"]["result"][0]["value"][1]) >= 1:
                    break
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            assert time.monotonic() < deadline, "Prometheus scraped nothing"
            time.sleep(2)
    finally:
        server.terminate()
        server.wait(timeout=30)
