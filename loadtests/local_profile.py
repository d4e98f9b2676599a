"""Run configs/local.yaml's two Serve applications (``mediatrans`` and ``llm``) on a free port, for benchmarks.

Both get the service key in their args (the LLM app requires it, the
Translator's engine sends it), so the Ray workers need no environment of their own.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import yaml

from loadtests.llm_process import ensure_service_key

ROOT = Path(__file__).resolve().parents[1]


def start_ray(**options: Any) -> None:
    """``ray.init`` on this machine's 2 CPUs, as ``make run`` starts Ray (cluster/local/ray-env.sh): workers at
    normal priority (``RAY_worker_niceness``), no dashboard, no log forwarding."""
    import ray

    os.environ.setdefault("RAY_worker_niceness", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False, **options)


def local_apps() -> dict[str, dict[str, Any]]:
    """The profile's applications by name (args and deployment options as written)."""
    raw = yaml.safe_load((ROOT / "configs" / "local.yaml").read_text(encoding="utf-8"))
    return {app["name"]: app for app in raw["applications"]}


def mediatrans_args(port: int, **overrides: Any) -> dict[str, Any]:
    """The ``mediatrans`` args with the LLM engine pointed at this port's ``/llm/v1``, with the service key."""
    args = copy.deepcopy(local_apps()["mediatrans"]["args"])
    for spec in args["translator"].get("engines", []):
        if spec["engine"] == "llm":
            spec["options"]["base_url"] = f"http://127.0.0.1:{port}/llm/v1"
            spec["options"]["api_key"] = ensure_service_key()
    args.update(overrides)
    return args


def run_llm_app() -> None:
    """Deploy the ``llm`` application with the profile's args and replica options."""
    from ray import serve

    from deployments.llm_server import LLMServer, LLMServerArgs

    app = local_apps()["llm"]
    options = app["deployments"][0]
    deployment = LLMServer.options(
        ray_actor_options=options["ray_actor_options"], max_ongoing_requests=options["max_ongoing_requests"]
    )
    args = LLMServerArgs.model_validate({**app["args"], "api_key": ensure_service_key()})
    serve.run(deployment.bind(args.model_dump()), name="llm", route_prefix="/llm")
