"""Ray's token authentication on KubeRay, as in the local profile: every Ray process needs the token of a Secret."""

from __future__ import annotations

from typing import Any

from tests.unit.kuberay.manifests import cluster, example_secrets, groups, ray_containers, secret_refs

AUTH_SECRET = ("mediatrans-ray-auth", "auth_token")


def env_value(container: dict[str, Any], name: str) -> Any:
    values = [var.get("value") for var in container.get("env", []) if var["name"] == name]
    assert len(values) == 1, f"{name} set {len(values)} times"
    return values[0]


def test_every_ray_container_runs_with_token_auth_from_a_secret() -> None:
    found = dict(ray_containers())
    assert set(found) == set(groups()), "one Ray container per group"
    for group, container in found.items():
        assert env_value(container, "RAY_AUTH_MODE") == "token", group
        assert secret_refs(container).get("RAY_AUTH_TOKEN") == AUTH_SECRET, group
        assert "RAY_AUTH_TOKEN_PATH" not in {var["name"] for var in container["env"]}, f"{group}: one token source"


def test_the_autoscaler_and_the_operator_use_the_same_token() -> None:
    spec = cluster()
    assert spec["authOptions"] == {"mode": "token", "secretName": AUTH_SECRET[0]}, "KubeRay's own dashboard calls"
    autoscaler = spec["autoscalerOptions"]
    assert env_value(autoscaler, "RAY_AUTH_MODE") == "token"
    assert secret_refs(autoscaler).get("RAY_AUTH_TOKEN") == AUTH_SECRET


def test_the_example_secrets_show_the_token_key() -> None:
    name, key = AUTH_SECRET
    assert key in example_secrets()[name]
