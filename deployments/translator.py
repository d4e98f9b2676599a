"""The Translator deployment: one configured engine (plus fallback) behind Serve."""

from __future__ import annotations

import asyncio
from typing import Any

from ray import serve

from deployments.capabilities import Capabilities
from deployments.engines.registry import start_engine
from deployments.engines.translation.base import TranslationRequest, TranslationResult, TranslatorEngine


@serve.deployment(name="Translator", ray_actor_options={"num_cpus": 0.25}, max_ongoing_requests=32)
class Translator:
    """Translates batches of segments; reports its language pairs."""

    def __init__(self, spec: dict[str, Any]) -> None:
        from deployments.engines.translation.safe import SafeTranslator

        self.engine = start_engine(spec, TranslatorEngine)
        self.fallback = start_engine(spec["fallback"], TranslatorEngine) if spec.get("fallback") else None
        self.safe = SafeTranslator(self.engine, fallback=self.fallback)

    async def translate(self, request: TranslationRequest, glossary: Any = None) -> TranslationResult:
        # Engines are blocking (subprocess / HTTP); keep the replica's event loop free.
        return await asyncio.to_thread(self.safe.translate, request, glossary)

    def capabilities(self) -> Capabilities:
        engines = [e for e in (self.engine, self.fallback) if e is not None]
        formality = frozenset().union(*(e.supports_formality() for e in engines))
        return Capabilities(translation_pairs=self.safe.pairs(), formality_targets=formality)

    def ready(self) -> bool:
        self.engine.health()
        return True

    def check_health(self) -> None:
        self.engine.health()

    def __del__(self) -> None:
        for engine in (getattr(self, "engine", None), getattr(self, "fallback", None)):
            if engine is not None:
                engine.shutdown()
