"""The Translator deployment: the configured engines, routed per pair by measured quality."""

from __future__ import annotations

import asyncio
from typing import Any

from ray import serve

from core.capability_args import TranslatorArgs
from core.metrics import EngineObserver
from engines.capabilities import Capabilities
from engines.errors import UnsupportedLanguage
from engines.registry import start_engine
from engines.translation.base import TranslationRequest, TranslationResult, TranslatorEngine
from engines.translation.pivot import PivotTranslator
from engines.translation.routing import Router, RoutingTable, preferred_engine
from engines.translation.safe import SafeTranslator


@serve.deployment(name="Translator", ray_actor_options={"num_cpus": 0.2}, max_ongoing_requests=32)
class Translator:
    """Translates batches of segments with the pair's best engine; reports the pairs it offers."""

    def __init__(self, spec: TranslatorArgs | dict[str, Any]) -> None:
        args = TranslatorArgs.model_validate(spec)
        self.engines: list[TranslatorEngine] = []
        try:
            for engine_spec in args.engines:
                self.engines.append(start_engine(engine_spec.engine, engine_spec.options, TranslatorEngine))
            by_name = {engine.name: engine for engine in self.engines}
            self.engines += [PivotTranslator(by_name[p.first], by_name[p.second], p.via, p.targets) for p in args.pivots]
        except Exception:
            self._shutdown()
            raise
        table = RoutingTable.load(args.routing, args.floor) if args.routing else None
        self.router = Router(self.engines, table)
        self._capabilities: Capabilities | None = None  # the engines' pairs are fixed once started
        self.safe = SafeTranslator(
            self.engines[0],
            fallback=self.engines[1] if len(self.engines) > 1 else None,
            observer=EngineObserver("translation"),
        )

    async def translate(self, request: TranslationRequest, glossary: Any = None) -> TranslationResult:
        if (request.source_lang, request.target_lang) not in self.router.pairs():
            raise UnsupportedLanguage(
                f"{request.source_lang}->{request.target_lang} is not offered on this service",
                source=request.source_lang,
                target=request.target_lang,
            )
        chain = self.router.chain(request.source_lang, request.target_lang, prefer=preferred_engine(request.hints))
        # Engines are blocking (subprocess / HTTP); keep the replica's event loop free.
        return await asyncio.to_thread(self.safe.translate, request, glossary, chain)

    async def summarize(self, texts: list[str], language: str) -> str | None:
        """A short English summary of a transcript by the LLM engine, when one is configured."""
        llm = next((e for e in self.engines if hasattr(e, "summarize")), None)
        if llm is None:
            return None
        return str(await asyncio.to_thread(llm.summarize, texts, language))

    def capabilities(self) -> Capabilities:
        """What this replica offers; worked out once (a route per offered pair: seconds of CPU with pivots)."""
        if self._capabilities is None:
            self._capabilities = self._report()
        return self._capabilities

    def _report(self) -> Capabilities:
        formality = frozenset().union(*(e.supports_formality() for e in self.engines))
        return Capabilities(
            translation_pairs=self.router.pairs(),
            formality_targets=formality,
            pair_routes={(r["source"], r["target"]): (r["engine"], r["chrf"]) for r in self.router.table_rows()},
            withheld_pairs=self.router.withheld(),
        )

    def describe(self) -> dict[str, Any]:
        """Engines, routes and fallback counters (for operators and benchmarks)."""
        return {
            "engines": [e.describe() for e in self.engines],
            "routes": self.router.table_rows(),
            "fallbacks": self.safe.stats(),
        }

    def ready(self) -> bool:
        for engine in self.engines:
            engine.health()
        return True

    def check_health(self) -> None:
        for engine in self.engines:
            engine.health()

    def _shutdown(self) -> None:
        for engine in getattr(self, "engines", []):
            engine.shutdown()

    def __del__(self) -> None:
        self._shutdown()
