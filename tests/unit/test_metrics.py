"""core.metrics: bounded labels, exported names, and the tags the request middleware records."""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from core import metrics
from core.metrics import families
from core.metrics.bounded import OTHER, BoundedLabel
from serve_app.request_metrics import RequestMetricsMiddleware, endpoint_group, error_code


def test_bounded_label_keeps_the_first_values_and_folds_the_rest() -> None:
    label = BoundedLabel(2)
    assert [label(v) for v in ("a", "b", "c", "a", "d", "b")] == ["a", "b", OTHER, "a", OTHER, "b"]
    with pytest.raises(ValueError):
        BoundedLabel(0)


def test_exported_names_follow_rays_prometheus_naming() -> None:
    names = metrics.exported_names()
    assert "ray_mediatrans_http_requests_total" in names
    assert {"ray_mediatrans_video_stage_seconds_bucket", "ray_mediatrans_video_stage_seconds_count"} <= names
    assert "ray_mediatrans_queue_depth" in names and "ray_mediatrans_queue_depth_total" not in names
    assert len({f.name for f in metrics.FAMILIES}) == len(metrics.FAMILIES)
    for family in metrics.FAMILIES:
        assert re.fullmatch(r"mediatrans_[a-z_]+", family.name)
        assert all(re.fullmatch(r"[a-z_]+", tag) for tag in family.tags)
        assert (family.kind == "histogram") == bool(family.buckets)
        assert list(family.buckets) == sorted(family.buckets)


@pytest.mark.parametrize(
    ("path", "group"),
    [
        ("/v1/languages", "languages"),
        ("/v1/video/task/abc123", "video"),
        ("/v1/files/x/y.srt", "files"),
        ("/v1/voice/clone/v1", "voice"),
        ("/healthz", "health"),
        ("/v1/unknown/thing", "other"),
        ("/etc/passwd", "other"),
        ("/v1", "other"),
    ],
)
def test_endpoint_groups_are_a_closed_set(path: str, group: str) -> None:
    assert endpoint_group(path) == group


def test_error_code_is_read_from_the_contract_body() -> None:
    assert error_code(b'{"code": 1001, "message": "x"}') == "1001"
    assert error_code(b'{"code": "INVALID_PARAMETER"}') == "INVALID_PARAMETER"
    assert error_code(b"Service Unavailable") == "unknown"
    assert error_code(b"[1, 2]") == "unknown"


class Recorder:
    def __init__(self) -> None:
        self.points: list[tuple[str, float, dict[str, str]]] = []

    def for_family(self, family: families.Family) -> Any:
        recorder = self

        class Instrument:
            def inc(self, value: float, tags: dict[str, str]) -> None:
                recorder.points.append((family.name, value, tags))

            observe = set = inc

        return Instrument()


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    rec = Recorder()
    monkeypatch.setattr(families, "instrument", rec.for_family)
    return rec


class _Account:
    id = "acct_test"


async def ok(request: Request) -> JSONResponse:
    request.state.account = _Account()
    return JSONResponse({"ok": True})


async def refused(request: Request) -> JSONResponse:
    return JSONResponse({"code": 2004, "message": "no"}, status_code=404)


async def crash(request: Request) -> JSONResponse:
    raise RuntimeError("boom")


def app() -> Starlette:
    routes = [Route("/v1/video/task/{id}", ok), Route("/v1/grammar", refused, methods=["POST"]), Route("/v1/tts", crash)]
    return Starlette(routes=routes, middleware=[Middleware(RequestMetricsMiddleware)])


def test_middleware_counts_status_code_group_and_account(recorder: Recorder) -> None:
    with TestClient(app(), raise_server_exceptions=False) as client:
        assert client.get("/v1/video/task/t1").status_code == 200
        assert client.post("/v1/grammar").status_code == 404
        assert client.get("/v1/tts").status_code == 500
    requests = [tags for name, _, tags in recorder.points if name == "mediatrans_http_requests"]
    assert requests == [
        {"group": "video", "method": "GET", "status": "200", "code": "none"},
        {"group": "grammar", "method": "POST", "status": "404", "code": "2004"},
        {"group": "tts", "method": "GET", "status": "500", "code": "unknown"},
    ]
    latencies = [value for name, value, _ in recorder.points if name == "mediatrans_http_request_seconds"]
    assert len(latencies) == 3 and all(v >= 0 for v in latencies)
    accounts = [tags for name, _, tags in recorder.points if name == "mediatrans_account_requests"]
    assert accounts == [{"account": "acct_test", "group": "video"}]


def test_recording_never_raises_into_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(family: families.Family) -> Any:
        raise RuntimeError("metrics backend down")

    monkeypatch.setattr(families, "instrument", broken)
    metrics.http_request("video", "GET", 200, "", 0.1)  # no exception
    metrics.queue_state(1, 2, 3.0)
