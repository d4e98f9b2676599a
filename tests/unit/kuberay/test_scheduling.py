"""Every Serve replica's request (CPU, GPU, memory, accelerator) fits a worker group the autoscaler can start."""

from __future__ import annotations

from typing import Any

from tests.unit.kuberay.manifests import cluster, groups, serve_config


def actor_demand(options: dict[str, Any]) -> dict[str, float]:
    """What one replica actor asks Ray for, under Ray's resource names (Serve's default is 1 CPU)."""
    demand = {"CPU": options.get("num_cpus", 1), "GPU": options.get("num_gpus", 0), "memory": options.get("memory", 0)}
    demand |= options.get("resources", {})
    if options.get("accelerator_type"):
        demand[f"accelerator_type:{options['accelerator_type']}"] = 0.001
    return {name: amount for name, amount in demand.items() if amount}


def llm_bundles(llm: dict[str, Any]) -> list[dict[str, float]]:
    """Ray Serve LLM's placement group for one model: a GPU per device (tensor x pipeline parallel), each tagged
    accelerator_type:<X>, the first one also holding the replica actor."""
    assert "placement_group_config" not in llm, "explicit bundles: read them here"
    engine = llm.get("engine_kwargs", {})
    devices = engine.get("tensor_parallel_size", 1) * engine.get("pipeline_parallel_size", 1)
    tag = {f"accelerator_type:{llm['accelerator_type']}": 0.001} if llm.get("accelerator_type") else {}
    bundles = [{"GPU": 1, **tag} for _ in range(devices)]
    actor = actor_demand(llm.get("deployment_config", {}).get("ray_actor_options", {}))
    bundles[0] = {name: bundles[0].get(name, 0) + actor.get(name, 0) for name in bundles[0].keys() | actor.keys()}
    return bundles


def serve_demands() -> list[tuple[str, dict[str, float]]]:
    """(deployment, resources) for every bundle a replica of the embedded Serve config must find on one node."""
    demands = []
    for app in serve_config()["applications"]:
        for deployment in app.get("deployments", []):
            bundles = deployment.get("placement_group_bundles") or [actor_demand(deployment.get("ray_actor_options", {}))]
            demands += [(f"{app['name']}/{deployment['name']}", bundle) for bundle in bundles]
        for llm in app.get("args", {}).get("llm_configs", []):
            model = llm["model_loading_config"]["model_id"]
            demands += [(f"{app['name']}/{model}", bundle) for bundle in llm_bundles(llm)]
    return demands


def offers() -> dict[str, dict[str, float]]:
    """What the Ray autoscaler believes a pod of each worker group offers: Ray's own reading of the RayCluster
    spec (rayStartParams num-cpus / num-gpus / memory / resources, else the Ray container's limits)."""
    from ray.autoscaler._private.kuberay.autoscaling_config import _derive_autoscaling_config_from_ray_cr

    ray_cluster = {"metadata": {"name": "mediatrans", "namespace": "mediatrans"}, "spec": cluster()}
    node_types = _derive_autoscaling_config_from_ray_cr(ray_cluster)["available_node_types"]
    return {name: node["resources"] for name, node in node_types.items() if node["max_workers"] > 0}


def test_the_llm_replicas_ask_for_their_accelerator() -> None:
    """The demand reading sees the accelerator the LLM asks for (else the next test would prove little)."""
    assert any("accelerator_type:H100" in demand for name, demand in serve_demands() if name.startswith("llm/"))


def test_every_serve_replica_fits_a_worker_group() -> None:
    """Every CPU, GPU, memory and custom resource (accelerator_type:<X> included) a replica asks for is offered,
    all together, by some worker group as the autoscaler sees it; otherwise the replica stays pending."""
    groups_offer = offers()
    for name, demand in serve_demands():
        fits = [group for group, offer in groups_offer.items() if all(offer.get(k, 0) >= v for k, v in demand.items())]
        assert fits, f"{name} asks for {demand}; the worker groups offer {groups_offer}"


def test_a_group_that_offers_an_accelerator_runs_only_on_it() -> None:
    """A group telling Ray it has accelerator X must be required (not just preferred) onto nodes with GPU X."""
    for name, offer in offers().items():
        for accelerator in [r.split(":", 1)[1] for r in offer if r.startswith("accelerator_type:")]:
            affinity = groups()[name]["template"]["spec"]["affinity"]["nodeAffinity"]
            for term in affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]:
                products = [
                    value
                    for expression in term["matchExpressions"]
                    if expression["key"] == "nvidia.com/gpu.product" and expression["operator"] == "In"
                    for value in expression["values"]
                ]
                assert products and all(accelerator in product for product in products), (name, products)
