"""The LLM Serve application: a GGUF chat model behind an OpenAI-compatible ``/v1``.

The embedded profile mounts it at ``/llm`` exactly where the GPU profile
mounts Ray Serve LLM (``ray.serve.llm:build_openai_app``), so the translator
reaches ``http://127.0.0.1:8000/llm/v1`` in both and only the config
differs. Outside Serve, ``python -m deployments.llm_server`` runs the same
app under uvicorn (benchmarks and tests use it).

The endpoint is internal: every request needs the service key
(``MEDIATRANS_LLM_KEY``, or ``api_key`` in the args) and asks for at most
``max_tokens_limit`` completion tokens (docs/llm.md).
"""

from __future__ import annotations

import argparse
import threading
from typing import Any, cast

import pydantic
from ray import serve
from starlette.applications import Starlette

from core import metrics
from engines.llm.chat_model import ChatModel, ChatModelConfig
from engines.llm.completion import Generated
from engines.llm.openai_api import DEFAULT_MAX_TOKENS_LIMIT, create_openai_app
from engines.llm.service_key import ENV_VAR, configured_key


class LLMServerArgs(pydantic.BaseModel):
    """``args`` of the ``llm`` application in ``configs/local.yaml`` (see docs/llm.md)."""

    model_config = pydantic.ConfigDict(extra="forbid")

    model_path: str = "models/qwen2.5-coder-1.5b-instruct/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    model_id: str = "translator-llm"
    slots: int = pydantic.Field(default=4, ge=1, le=64)
    n_ctx: int = pydantic.Field(default=8192, ge=512)
    threads: int = pydantic.Field(default=2, ge=1)
    threads_batch: int | None = pydantic.Field(default=None, ge=1)
    n_batch: int = pydantic.Field(default=256, ge=8)
    max_tokens: int = pydantic.Field(default=1024, ge=1)
    max_tokens_limit: int = pydantic.Field(default=DEFAULT_MAX_TOKENS_LIMIT, ge=1)
    max_waiting: int = pydantic.Field(default=64, ge=1)
    # Unset in the profiles: the replica reads MEDIATRANS_LLM_KEY, so the key stays out of config files.
    api_key: pydantic.SecretStr | None = None

    @pydantic.field_validator("model_path")
    @classmethod
    def _from_project_root(cls, value: str) -> str:
        """Relative paths are relative to the project root, whatever a Ray worker's directory is."""
        from core.paths import project_path

        return project_path(value)

    @pydantic.model_validator(mode="after")
    def _default_within_limit(self) -> LLMServerArgs:
        if self.max_tokens > self.max_tokens_limit:
            raise ValueError(f"max_tokens ({self.max_tokens}) exceeds max_tokens_limit ({self.max_tokens_limit})")
        return self

    def service_key(self) -> str | None:
        """``api_key`` when set, else ``MEDIATRANS_LLM_KEY``; None leaves the server refusing everything."""
        return configured_key(self.api_key.get_secret_value() if self.api_key else None)

    def chat_config(self) -> ChatModelConfig:
        fields = self.model_dump(exclude={"max_waiting", "max_tokens_limit", "api_key"})
        return ChatModelConfig(**fields)

    def openai_app(self, model: ChatModel) -> Starlette:
        """The HTTP surface of ``model`` with these args' key, ceiling and queue bound."""
        return create_openai_app(
            model, api_key=self.service_key(), max_waiting=self.max_waiting, max_tokens_limit=self.max_tokens_limit
        )


def record_completion(result: Generated) -> None:
    """A finished completion as metrics (docs/observability.md)."""
    metrics.llm_completion(
        result.prompt_tokens, result.cached_tokens, result.completion_tokens, result.finish_reason, result.seconds
    )


class LoadSampler(threading.Thread):
    """Every ``period_s``: the model's busy slots, queue and decode time, as gauges and a counter."""

    def __init__(self, model: ChatModel, period_s: float = 5.0) -> None:
        super().__init__(name="llm-metrics", daemon=True)
        self.model, self.period_s = model, period_s
        self._stopped = threading.Event()

    def run(self) -> None:
        busy_before = self.model.runner.stats.busy_s
        while not self._stopped.wait(self.period_s):
            load = self.model.load()
            busy = self.model.runner.stats.busy_s
            metrics.llm_load(load["running"], load["waiting"], busy - busy_before)
            busy_before = busy

    def stop(self) -> None:
        self._stopped.set()


@serve.deployment(name="LLMServer", ray_actor_options={"num_cpus": 0.2}, max_ongoing_requests=64)
@serve.ingress()
class LLMServer:
    """One replica holds the model; concurrent requests share its decode steps."""

    def __init__(self, args: dict[str, Any]) -> None:
        self.args = LLMServerArgs.model_validate(args)
        self.model = ChatModel(self.args.chat_config(), on_finish=record_completion)
        self._sampler = LoadSampler(self.model)
        self._sampler.start()

    def __serve_build_asgi_app__(self) -> Starlette:
        return self.args.openai_app(self.model)

    def check_health(self) -> None:
        if not self.model.alive():
            raise RuntimeError("the model's scheduler thread stopped")

    def __del__(self) -> None:
        sampler = getattr(self, "_sampler", None)
        if sampler is not None:
            sampler.stop()
        model = getattr(self, "model", None)
        if model is not None:
            model.close()


def build_app(args: dict[str, Any]) -> Any:
    """Serve application builder named by ``import_path`` in the config."""
    # @serve.deployment made LLMServer a Deployment; mypy keeps the decorated class's own type
    return cast(serve.Deployment, LLMServer).bind(LLMServerArgs.model_validate(args).model_dump())


def main(argv: list[str] | None = None) -> None:
    """Run the app under uvicorn without Ray: ``python -m deployments.llm_server --model F``."""
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=LLMServerArgs().model_path)
    parser.add_argument("--model-id", default="translator-llm")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--threads-batch", type=int, default=None)
    parser.add_argument("--max-tokens-limit", type=int, default=DEFAULT_MAX_TOKENS_LIMIT)
    parser.add_argument("--api-key", default=None, help=f"the service key clients must send (default: ${ENV_VAR})")
    options = parser.parse_args(argv)
    args = LLMServerArgs(
        model_path=options.model,
        model_id=options.model_id,
        slots=options.slots,
        n_ctx=options.n_ctx,
        threads=options.threads,
        threads_batch=options.threads_batch,
        max_tokens_limit=options.max_tokens_limit,
        api_key=options.api_key,
    )
    model = ChatModel(args.chat_config())
    try:
        uvicorn.run(args.openai_app(model), host=options.host, port=options.port, log_level="warning")
    finally:
        model.close()


if __name__ == "__main__":
    main()
