"""The ingress Serve deployment: hosts the Starlette app on each replica."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from ray import serve
from starlette.applications import Starlette

from core.files.local import purge_folders
from core.settings import AppArgs
from engines.capabilities import Capabilities
from engines.translation.memory import warm_up as warm_memories
from serve_app.asgi import create_app
from serve_app.services import CapabilityProbe, Services

#: Deployments whose engines define what the service can do (languages, pairs).
CAPABILITY_REPORTERS = ("translator", "asr")


def _probe(handle: Any) -> CapabilityProbe:
    async def call() -> Capabilities:
        result: Capabilities = await handle.capabilities.remote()
        return result

    return call


@serve.deployment(name="Ingress", ray_actor_options={"num_cpus": 0.2}, max_ongoing_requests=256)
@serve.ingress()
class Ingress:
    """Receives every HTTP request; calls capability deployments through handles."""

    def __init__(self, args: dict[str, Any], handles: Mapping[str, Any]) -> None:
        self.args = AppArgs.model_validate(args)
        self.handles = dict(handles)
        probes = {name: _probe(self.handles[name]) for name in CAPABILITY_REPORTERS if name in self.handles}
        self.services = Services.create(self.args, self.handles, probes)
        # Uploads of a replica that died mid-request are left in staging: clear the dead ones.
        purge_folders(self.args.worker.staging_dir, time.time() - self.args.worker.staging_max_age_s)
        threading.Thread(target=warm_memories, name="warm-memories", daemon=True).start()  # game requests' memories

    def __serve_build_asgi_app__(self) -> Starlette:
        return create_app(self.services, behind_serve_proxy=True)
