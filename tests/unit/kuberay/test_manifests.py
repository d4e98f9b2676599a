"""The KubeRay manifests are Kubernetes objects with requests, limits, Secrets and a password-protected Redis."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from tests.unit.kuberay.manifests import (
    APP_ENV,
    KUBERAY,
    NOT_DEPLOYED,
    ROOT,
    SETTINGS_SOURCES,
    cluster,
    containers,
    docs,
    every_container,
    example_secrets,
    gpus,
    groups,
    manifests,
    one,
    ray_containers,
    secret_refs,
    worker,
)


@pytest.mark.parametrize("name", sorted(p.name for p in KUBERAY.glob("*.yaml")))
def test_every_document_is_a_kubernetes_object(name: str) -> None:
    found = docs(name)
    assert found, f"{name} holds no document"
    for doc in found:
        assert isinstance(doc, dict) and doc.get("apiVersion") and doc.get("kind"), (name, doc)


def test_kustomization_lists_the_manifests_but_not_the_example_secrets() -> None:
    resources = yaml.safe_load((KUBERAY / "kustomization.yaml").read_text())["resources"]
    deployed = {path.name for path in KUBERAY.glob("*.yaml")} - NOT_DEPLOYED
    assert set(resources) == deployed, "every manifest here is applied"
    assert "secrets.example.yaml" not in resources, "applying it would overwrite the real Secrets"
    assert all((KUBERAY / name).is_file() for name in resources)


def test_rayservice_has_a_head_a_cpu_and_a_gpu_group() -> None:
    service = one("rayservice.yaml", "RayService")
    assert service["apiVersion"] == "ray.io/v1"
    head = groups()["head"]
    assert head["rayStartParams"]["num-cpus"] == "0", "replicas must land on workers"
    assert gpus(head) == 0
    assert 8265 in {p["containerPort"] for c in containers(head) for p in c.get("ports", [])}
    assert "mediatrans-cpu:" in containers(worker("cpu"))[0]["image"]
    assert "mediatrans-gpu:" in containers(worker("gpu"))[0]["image"]


def test_worker_groups_scale_between_bounds() -> None:
    spec = cluster()
    assert spec["enableInTreeAutoscaling"] is True
    assert spec["autoscalerOptions"]["idleTimeoutSeconds"] > 0
    for group in spec["workerGroupSpecs"]:
        assert 1 <= group["minReplicas"] <= group["replicas"] <= group["maxReplicas"], group["groupName"]
        assert group["maxReplicas"] > group["minReplicas"], f"{group['groupName']} cannot scale"


def test_every_container_has_cpu_and_memory_requests_and_limits() -> None:
    named = [*every_container(), ("autoscaler", cluster()["autoscalerOptions"])]
    for name, container in named:
        resources = container.get("resources", {})
        for part in ("requests", "limits"):
            assert {"cpu", "memory"} <= set(resources.get(part, {})), f"{name}: {part}"


def test_gpu_group_requests_and_tolerates_gpus() -> None:
    group = worker("gpu")
    pod = group["template"]["spec"]
    assert gpus(group) == 1
    assert any(t.get("key") == "nvidia.com/gpu" and t.get("effect") == "NoSchedule" for t in pod.get("tolerations", []))
    assert pod.get("nodeSelector") or pod.get("affinity")
    assert not any(t.get("key") == "nvidia.com/gpu" for t in worker("cpu")["template"]["spec"].get("tolerations", []))


def test_every_ray_pod_exports_metrics_on_8080() -> None:
    for name, group in groups().items():
        assert group["rayStartParams"].get("metrics-export-port") == "8080", name
        ports = {p["containerPort"] for c in containers(group) for p in c.get("ports", [])}
        assert 8080 in ports, name


def test_every_ray_container_reads_the_app_settings_from_secrets() -> None:
    settings = "".join((ROOT / source).read_text() for source in SETTINGS_SOURCES)
    read = set(re.findall(r'os\.environ\.get\("(\w+)"', settings)) | set(re.findall(r'^ENV_VAR = "(\w+)"', settings, re.M))
    assert read >= APP_ENV, f"variables the code does not read: {APP_ENV - read}"
    for name, container in ray_containers():
        refs = secret_refs(container)
        assert set(refs) >= APP_ENV, f"{name} lacks {APP_ENV - set(refs)}"


def secret_references() -> set[tuple[str, str | None]]:
    """(Secret, key) of every secretKeyRef in the manifests; (Secret, None) for envFrom secretRef and secret volumes."""
    found: set[tuple[str, str | None]] = set()

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key == "secretKeyRef":
                    found.add((value["name"], value["key"]))
                elif key == "secretRef":
                    found.add((value["name"], None))
                elif key == "secret" and isinstance(value, dict):
                    found.add((value["secretName"], None))
                walk(value)

    walk(manifests())
    return found


def test_every_referenced_secret_and_key_is_in_the_example() -> None:
    """Whatever a manifest reads from a Secret (env, envFrom, volumes, the GCS's password) has a placeholder."""
    secrets = example_secrets()
    references = secret_references()
    assert {secret for secret, _ in references} >= {"mediatrans-app", "mediatrans-s3", "mediatrans-redis"}
    for secret, key in references:
        assert secret in secrets, f"Secret {secret} is not in secrets.example.yaml"
        assert key is None or key in secrets[secret], f"{secret}/{key} is not in secrets.example.yaml"


def test_example_secrets_hold_placeholders_only() -> None:
    secrets = example_secrets()
    for secret, values in secrets.items():
        for key, value in values.items():
            assert "REPLACE" in value, f"{secret}/{key} looks like a real value"


def test_redis_url_carries_the_redis_password() -> None:
    """The app logs in with the password Redis requires: REDIS_URL holds the redis-password of mediatrans-redis."""
    url = urlsplit(example_secrets()["mediatrans-app"]["REDIS_URL"])
    assert url.password and url.password == example_secrets()["mediatrans-redis"]["redis-password"]
    assert not url.username, "Redis's default user has no name in the URL"


def test_redis_requires_the_password() -> None:
    container = one("redis.yaml", "Deployment")["spec"]["template"]["spec"]["containers"][0]
    args = " ".join(container["args"])
    assert "--requirepass $(REDIS_PASSWORD)" in args
    refs = secret_refs(container)
    assert refs["REDIS_PASSWORD"] == refs["REDISCLI_AUTH"] == ("mediatrans-redis", "redis-password")
    assert "redis-cli" in " ".join(container["readinessProbe"]["exec"]["command"]), "the probe logs in through REDISCLI_AUTH"


def test_redis_url_points_at_the_redis_service() -> None:
    service = one("redis.yaml", "Service")
    deployment = one("redis.yaml", "Deployment")
    refs = {secret_refs(c).get("REDIS_URL") for _, c in ray_containers()}
    assert len(refs) == 1, refs
    secret, key = refs.pop()  # type: ignore[misc]
    url = urlsplit(example_secrets()[secret][key])
    assert url.scheme == "redis" and url.hostname == service["metadata"]["name"]
    assert url.port in {p["port"] for p in service["spec"]["ports"]}
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items(), "the Service selects no Redis pod"


def test_redis_keeps_every_key() -> None:
    deployment = one("redis.yaml", "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    args = " ".join(pod["containers"][0]["args"])
    assert "--appendonly yes" in args
    assert "--maxmemory-policy noeviction" in args
    claim = one("redis.yaml", "PersistentVolumeClaim")["metadata"]["name"]
    assert claim in {v.get("persistentVolumeClaim", {}).get("claimName") for v in pod["volumes"]}
