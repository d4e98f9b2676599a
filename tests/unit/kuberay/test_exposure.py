"""Only the public routes leave the cluster; the Serve config embedded is the GPU profile."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.unit.kuberay.manifests import (
    GPU_CONFIG,
    KUBERAY,
    PUBLIC_ROUTES,
    SERVE_SERVICE,
    docs,
    load_script,
    one,
    ray_containers,
    secret_refs,
    serve_config,
)


def ingress_paths() -> list[dict[str, Any]]:
    ingress = one("ingress.yaml", "Ingress")
    assert ingress["apiVersion"] == "networking.k8s.io/v1"
    assert "defaultBackend" not in ingress["spec"], "a default backend would expose every route"
    return [path for rule in ingress["spec"]["rules"] for path in rule["http"]["paths"]]


def routed(url_path: str) -> bool:
    """Whether the Ingress passes ``url_path`` on (Kubernetes Prefix matching is per path element)."""
    for path in ingress_paths():
        rule, kind = path["path"], path["pathType"]
        if kind == "Exact" and url_path == rule:
            return True
        if kind in ("Prefix", "ImplementationSpecific") and (url_path == rule or url_path.startswith(rule.rstrip("/") + "/")):
            return True
    return False


def test_the_ingress_exposes_only_the_public_routes() -> None:
    paths = ingress_paths()
    assert {(p["path"], p["pathType"]) for p in paths} == PUBLIC_ROUTES
    for path in paths:
        backend = path["backend"]["service"]
        assert backend == {"name": SERVE_SERVICE, "port": {"number": 8000}}, backend


@pytest.mark.parametrize(
    "url_path", ["/v1/account", "/v1/video/translate", "/v1/files/a/b.mp4", "/docs", "/openapi.json", "/healthz", "/readyz"]
)
def test_the_public_routes_are_reachable(url_path: str) -> None:
    assert routed(url_path)


@pytest.mark.parametrize(
    "url_path", ["/llm/v1/chat/completions", "/llm/v1/models", "/llm", "/", "/-/routes", "/v1x", "/docs/../llm/v1/models"]
)
def test_the_llm_and_everything_else_stay_inside(url_path: str) -> None:
    assert not routed(url_path)


def test_no_service_faces_outside_the_cluster() -> None:
    for manifest in sorted(KUBERAY.glob("*.yaml")):
        for doc in docs(manifest.name):
            if doc["kind"] == "Service":
                assert doc["spec"].get("type", "ClusterIP") == "ClusterIP", doc["metadata"]["name"]
    serve_service = one("rayservice.yaml", "RayService")["spec"].get("serveService", {})
    assert serve_service.get("spec", {}).get("type", "ClusterIP") == "ClusterIP"


def test_the_llm_application_requires_the_service_key() -> None:
    apps = {app["name"]: app for app in yaml.safe_load(GPU_CONFIG.read_text())["applications"]}
    assert apps["llm"]["import_path"] == "deployments.llm_gateway:build_gpu_app", "the stock builder takes no key"
    assert apps["llm"]["route_prefix"] == "/llm"
    for name, container in ray_containers():
        assert secret_refs(container).get("MEDIATRANS_LLM_KEY") == ("mediatrans-app", "MEDIATRANS_LLM_KEY"), name


def test_serve_config_is_the_gpu_profile() -> None:
    """The embedded config is the GPU profile, key for key, plus only the cluster's logging_config."""
    profile = yaml.safe_load(GPU_CONFIG.read_text())
    embedded = serve_config()
    assert {key: embedded[key] for key in profile} == profile
    assert set(embedded) - set(profile) == {"logging_config"}


def test_rendered_manifest_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(KUBERAY / "render.py"), "--check"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


def test_render_check_reports_a_stale_manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    render = load_script(KUBERAY / "render.py")
    stale = tmp_path / "rayservice.yaml"
    stale.write_text((KUBERAY / "rayservice.yaml").read_text().replace("minReplicas: 2", "minReplicas: 1", 1))
    monkeypatch.setattr(render, "OUTPUT", stale)
    monkeypatch.setattr(render, "ROOT", tmp_path)
    assert render.main(["--check"]) == 1


def test_render_embeds_the_config_as_a_literal_block() -> None:
    render = load_script(KUBERAY / "render.py")
    template = "apiVersion: ray.io/v1\nkind: RayService\nspec:\n  serveConfigV2: |\n    __SERVE_CONFIG__\n  other: 1\n"
    config = "# comment\na:\n  b: [1, 2]\n\nc: 'x: y'\n"
    out = yaml.safe_load(render.render(template, config))
    assert yaml.safe_load(out["spec"]["serveConfigV2"]) == yaml.safe_load(config)
    assert out["spec"]["other"] == 1
    with pytest.raises(render.RenderError):
        render.render(template.replace("__SERVE_CONFIG__", "nothing"), config)


def test_render_adds_the_templates_settings_but_never_overrides_the_config() -> None:
    render = load_script(KUBERAY / "render.py")
    template = "kind: RayService\nspec:\n  serveConfigV2: |\n    __SERVE_CONFIG__\n    extra: {x: 1}\n  other: 1\n"
    out = yaml.safe_load(render.render(template, "a: 1\n"))
    assert yaml.safe_load(out["spec"]["serveConfigV2"]) == {"a": 1, "extra": {"x": 1}}
    assert out["spec"]["other"] == 1
    with pytest.raises(render.RenderError, match="both set extra"):
        render.render(template, "a: 1\nextra: {x: 2}\n")
