"""Failures and upgrades: GCS fault tolerance on Redis, a new cluster per upgrade, disruption budgets."""

from __future__ import annotations

from typing import Any

from tests.unit.kuberay.manifests import cluster, containers, groups, of_kind, one, pod_labels, secret_refs, selects


def test_an_upgrade_brings_up_a_new_cluster() -> None:
    """A change to rayClusterConfig starts a second RayCluster and moves traffic once it is healthy."""
    assert one("rayservice.yaml", "RayService")["spec"]["upgradeStrategy"] == {"type": "NewCluster"}


def test_the_gcs_keeps_its_tables_in_the_redis_of_redis_yaml() -> None:
    """GCS fault tolerance: the Redis Service of redis.yaml, with the password Redis requires."""
    options = cluster()["gcsFaultToleranceOptions"]
    service = one("redis.yaml", "Service")
    host, _, port = options["redisAddress"].removeprefix("redis://").partition(":")
    assert host == service["metadata"]["name"] and int(port) in {p["port"] for p in service["spec"]["ports"]}
    redis = one("redis.yaml", "Deployment")["spec"]["template"]["spec"]["containers"][0]
    password = options["redisPassword"]["valueFrom"]["secretKeyRef"]
    assert (password["name"], password["key"]) == secret_refs(redis)["REDIS_PASSWORD"]


def test_every_cluster_of_the_service_keeps_its_own_gcs_tables() -> None:
    """No fixed externalStorageNamespace: KubeRay uses each RayCluster's UID, so an upgrade's new cluster never
    shares the old one's tables; and nothing that KubeRay refuses next to gcsFaultToleranceOptions."""
    assert "externalStorageNamespace" not in cluster()["gcsFaultToleranceOptions"]
    head = groups()["head"]
    assert "redis-password" not in head["rayStartParams"] and "redis-username" not in head["rayStartParams"]
    env = {var["name"] for var in containers(head)[0].get("env", [])}
    assert not env & {"RAY_REDIS_ADDRESS", "REDIS_PASSWORD", "REDIS_USERNAME"}
    assert "ray.io/external-storage-namespace" not in one("rayservice.yaml", "RayService")["metadata"].get("annotations", {})


def budgets_for(labels: dict[str, str]) -> list[dict[str, Any]]:
    return [pdb for pdb in of_kind("PodDisruptionBudget") if selects(pdb["spec"]["selector"], labels)]


def test_every_ray_group_and_redis_has_one_disruption_budget() -> None:
    for name, labels in pod_labels().items():
        assert len(budgets_for(labels)) == 1, name


def test_ray_budgets_count_pods_as_kubernetes_allows_for_a_raycluster() -> None:
    """A RayCluster has no scale subresource: its pods' budgets may only give minAvailable, as an integer."""
    for name, group in groups().items():
        for pdb in budgets_for(group["template"]["metadata"]["labels"]):
            assert "maxUnavailable" not in pdb["spec"], name
            assert isinstance(pdb["spec"]["minAvailable"], int), name


def test_a_drain_moves_workers_one_at_a_time_at_their_minimum() -> None:
    for group in cluster()["workerGroupSpecs"]:
        (pdb,) = budgets_for(group["template"]["metadata"]["labels"])
        assert 1 <= pdb["spec"]["minAvailable"] == group["minReplicas"] - 1, group["groupName"]


def test_a_drain_never_evicts_the_head_or_redis_unannounced() -> None:
    """Single pods: the budget holds them (unless they are not ready, which never blocks a drain)."""
    for name in ("head", "redis"):
        (pdb,) = budgets_for(pod_labels()[name])
        assert pdb["spec"]["minAvailable"] == 1, name
        assert pdb["spec"].get("unhealthyPodEvictionPolicy") == "AlwaysAllow", name
