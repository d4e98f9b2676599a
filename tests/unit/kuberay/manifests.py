"""What the KubeRay manifest tests share: the manifests parsed, their pods, containers, Secrets and selectors."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[3]
KUBERAY = ROOT / "cluster" / "kuberay"
IMAGES = ROOT / "cluster" / "images"
GPU_CONFIG = ROOT / "configs" / "gpu-cluster.yaml"
APP_ENV = {"REDIS_URL", "MEDIATRANS_LINK_SECRET", "MEDIATRANS_LLM_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
#: The modules that read them.
SETTINGS_SOURCES = ("core/settings.py", "core/files/factory.py", "engines/llm/service_key.py")
#: What users may reach from outside the cluster: (path, pathType).
PUBLIC_ROUTES = {("/v1", "Prefix"), ("/docs", "Exact"), ("/openapi.json", "Exact"), ("/healthz", "Exact"), ("/readyz", "Exact")}
SERVE_SERVICE = "mediatrans-serve-svc"
COMPONENT = "app.kubernetes.io/component"
RAY_COMPONENTS = {"ray-head", "ray-worker-cpu", "ray-worker-gpu"}
#: Files that are not objects of the deployment: the example Secrets, the template render.py reads, kustomize's list.
NOT_DEPLOYED = {"secrets.example.yaml", "rayservice.template.yaml", "kustomization.yaml"}


def load_script(path: Path) -> ModuleType:
    """A script of the repository as a module (registered while it runs: dataclasses look their module up)."""
    name = f"_script_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def docs(name: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all((KUBERAY / name).read_text()) if doc is not None]


def one(name: str, kind: str) -> dict[str, Any]:
    found = [doc for doc in docs(name) if doc["kind"] == kind]
    assert len(found) == 1, f"{name}: {len(found)} {kind}"
    return found[0]


def cluster() -> dict[str, Any]:
    service = one("rayservice.yaml", "RayService")
    return service["spec"]["rayClusterConfig"]


def groups() -> dict[str, dict[str, Any]]:
    """Head and worker groups by name (``head`` for the head group)."""
    spec = cluster()
    return {"head": spec["headGroupSpec"], **{g["groupName"]: g for g in spec["workerGroupSpecs"]}}


def containers(group: dict[str, Any]) -> list[dict[str, Any]]:
    return group["template"]["spec"]["containers"]


def gpus(group: dict[str, Any]) -> int:
    return sum(int(c["resources"].get("limits", {}).get("nvidia.com/gpu", 0)) for c in containers(group))


def worker(kind: str) -> dict[str, Any]:
    workers = [g for name, g in groups().items() if name != "head"]
    found = [g for g in workers if (gpus(g) > 0) == (kind == "gpu")]
    assert len(found) == 1, f"{len(found)} {kind} worker groups"
    return found[0]


def ray_containers() -> Iterator[tuple[str, dict[str, Any]]]:
    """The Ray container of every group: KubeRay and its autoscaler take the pod's first container for Ray."""
    for name, group in groups().items():
        yield name, containers(group)[0]


def every_container() -> Iterator[tuple[str, dict[str, Any]]]:
    for name, group in groups().items():
        for container in containers(group):
            yield f"{name}/{container['name']}", container
    deployment = one("redis.yaml", "Deployment")
    for container in deployment["spec"]["template"]["spec"]["containers"]:
        yield f"redis/{container['name']}", container


def secret_refs(container: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Env name -> (Secret name, key) for every variable read from a Secret."""
    refs = {}
    for var in container.get("env", []):
        ref = var.get("valueFrom", {}).get("secretKeyRef")
        if ref:
            refs[var["name"]] = (ref["name"], ref["key"])
    return refs


def example_secrets() -> dict[str, dict[str, str]]:
    return {doc["metadata"]["name"]: {**doc.get("data", {}), **doc.get("stringData", {})} for doc in docs("secrets.example.yaml")}


def manifests() -> list[dict[str, Any]]:
    """Every object the deployment applies (and any manifest added here later)."""
    return [doc for path in sorted(KUBERAY.glob("*.yaml")) if path.name not in NOT_DEPLOYED for doc in docs(path.name)]


def of_kind(kind: str) -> list[dict[str, Any]]:
    return [doc for doc in manifests() if doc["kind"] == kind]


def pod_labels() -> dict[str, dict[str, str]]:
    """Pod template labels of every Ray group (by group name) and of Redis (``redis``)."""
    labels = {name: group["template"]["metadata"]["labels"] for name, group in groups().items()}
    return {**labels, "redis": one("redis.yaml", "Deployment")["spec"]["template"]["metadata"]["labels"]}


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """Kubernetes label-selector matching (matchLabels and matchExpressions)."""
    if any(labels.get(key) != value for key, value in selector.get("matchLabels", {}).items()):
        return False
    for expression in selector.get("matchExpressions", []):
        key, values = expression["key"], expression.get("values", [])
        matched = {
            "In": key in labels and labels[key] in values,
            "NotIn": labels.get(key) not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }[expression["operator"]]
        if not matched:
            return False
    return True


def serve_config() -> dict[str, Any]:
    """The Serve config embedded in the RayService."""
    return yaml.safe_load(one("rayservice.yaml", "RayService")["spec"]["serveConfigV2"])
