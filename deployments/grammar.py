"""The Grammar deployment: the configured grammar engines behind Serve."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from ray import serve

from core import metrics
from core.capability_args import GrammarArgs
from engines.grammar.base import GrammarEngine
from engines.grammar.checker import Catalogue, GrammarChecker, GrammarRequest, GrammarResult
from engines.registry import start_engine


@serve.deployment(name="Grammar", ray_actor_options={"num_cpus": 0.2}, max_ongoing_requests=16)
class Grammar:
    """Checks texts; reports its rule catalogue and languages."""

    def __init__(self, spec: GrammarArgs | dict[str, Any]) -> None:
        args = GrammarArgs.model_validate(spec)
        engines = [start_engine(e.engine, e.options, GrammarEngine) for e in args.engines]
        self.checker = GrammarChecker(engines, chunk_chars=args.chunk_chars, workers=args.workers)

    async def check(self, request: GrammarRequest) -> GrammarResult:
        started = time.perf_counter()
        stop = threading.Event()  # set when the edge cancels this call (its deadline passed): the check stops
        try:
            result = await asyncio.to_thread(self.checker.check, request, stop)
        except asyncio.CancelledError:
            stop.set()
            raise
        metrics.grammar_latency(result.lang, time.perf_counter() - started)
        return result

    def catalogue(self) -> Catalogue:
        return self.checker.catalogue

    def ready(self) -> bool:
        for engine in self.checker.engines:
            engine.health()
        return True

    def check_health(self) -> None:
        self.ready()

    def __del__(self) -> None:
        checker = getattr(self, "checker", None)
        if checker is not None:
            checker.shutdown()
