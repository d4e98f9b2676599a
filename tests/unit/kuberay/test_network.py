"""Network policies: Ray's internal ports admit only Ray pods, Serve admits the ingress controller, Redis only Ray."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.kuberay.manifests import COMPONENT, RAY_COMPONENTS, groups, of_kind, one, pod_labels, selects


def peers_reaching(labels: dict[str, str], port: int) -> list[dict[str, Any]]:
    """The `from` peers of every NetworkPolicy rule opening ``port`` of pods with ``labels`` ({} = every source).
    A named port counts as any port."""
    found: list[dict[str, Any]] = []
    for policy in of_kind("NetworkPolicy"):
        spec = policy["spec"]
        if "Ingress" not in spec.get("policyTypes", ["Ingress"]) or not selects(spec["podSelector"], labels):
            continue
        for rule in spec.get("ingress", []):
            ports = rule.get("ports") or [{}]
            if any(
                isinstance(p.get("port", port), str) or p.get("port", port) <= port <= p.get("endPort", p.get("port", port))
                for p in ports
            ):
                found += rule.get("from") or [{}]
    return found


def from_ray_pods(peer: dict[str, Any]) -> bool:
    """Whether a peer admits only this service's Ray pods: same namespace, a Ray component label required."""
    if set(peer) != {"podSelector"} or peer["podSelector"].get("matchLabels", {}).get("app.kubernetes.io/name") != "mediatrans":
        return False
    selector = peer["podSelector"]
    allowed = [{selector["matchLabels"][COMPONENT]}] if COMPONENT in selector.get("matchLabels", {}) else []
    allowed += [set(e["values"]) for e in selector.get("matchExpressions", []) if e["key"] == COMPONENT and e["operator"] == "In"]
    return bool(allowed) and set.intersection(*allowed) <= RAY_COMPONENTS


def from_app_in_one_namespace(peer: dict[str, Any], app: str) -> bool:
    """Whether a peer admits only pods labelled ``app`` in one named namespace."""
    namespace = peer.get("namespaceSelector", {}).get("matchLabels", {})
    return (
        set(peer) == {"namespaceSelector", "podSelector"}
        and "kubernetes.io/metadata.name" in namespace
        and peer["podSelector"].get("matchLabels", {}).get("app.kubernetes.io/name") == app
    )


def test_every_ray_pod_and_redis_are_behind_a_network_policy() -> None:
    for name, labels in pod_labels().items():
        selected = [p for p in of_kind("NetworkPolicy") if selects(p["spec"]["podSelector"], labels)]
        assert any("Ingress" in p["spec"].get("policyTypes", ["Ingress"]) for p in selected), name


def test_ray_pods_reach_each_other_on_every_port() -> None:
    """Ray picks most of its ports at start (raylet, object manager, workers): the Ray pods allow each other all."""
    for name, labels in pod_labels().items():
        if name == "redis":
            continue
        rules = [
            rule
            for policy in of_kind("NetworkPolicy")
            if selects(policy["spec"]["podSelector"], labels)
            for rule in policy["spec"].get("ingress", [])
        ]
        assert any("ports" not in rule and any(map(from_ray_pods, rule.get("from", []))) for rule in rules), name


@pytest.mark.parametrize("port", [6379, 10001], ids=["gcs", "client"])
def test_gcs_and_ray_client_ports_admit_only_ray_pods(port: int) -> None:
    for peer in peers_reaching(groups()["head"]["template"]["metadata"]["labels"], port):
        assert from_ray_pods(peer), peer


def test_the_dashboard_is_closed_to_pods_outside_the_cluster() -> None:
    """8265 (dashboard, Serve REST and Jobs API): the Ray pods, and the KubeRay operator, which deploys through it."""
    peers = peers_reaching(groups()["head"]["template"]["metadata"]["labels"], 8265)
    assert peers, "the operator must reach the dashboard"
    for peer in peers:
        assert from_ray_pods(peer) or from_app_in_one_namespace(peer, "kuberay-operator"), peer
    assert any(from_app_in_one_namespace(peer, "kuberay-operator") for peer in peers)


def test_the_serve_port_admits_the_ingress_controller_and_nothing_else_outside() -> None:
    """8000 on every Ray pod: the ingress controller, the Ray pods, and the operator's health check of the head."""
    for name, group in groups().items():
        peers = peers_reaching(group["template"]["metadata"]["labels"], 8000)
        assert any(from_app_in_one_namespace(peer, "ingress-nginx") for peer in peers), name
        for peer in peers:
            assert (
                from_ray_pods(peer)
                or from_app_in_one_namespace(peer, "ingress-nginx")
                or from_app_in_one_namespace(peer, "kuberay-operator")
            ), peer


def test_redis_admits_only_ray_pods() -> None:
    port = one("redis.yaml", "Service")["spec"]["ports"][0]["port"]
    peers = peers_reaching(pod_labels()["redis"], port)
    assert peers, "the Ray pods must reach Redis"
    assert all(from_ray_pods(peer) for peer in peers), peers
