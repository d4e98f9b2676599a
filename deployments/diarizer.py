"""The diarization deployment: one diarization engine (embedded CPU or pyannote GPU) behind Serve.

``diarize_stream`` is an async generator for ``handle.options(stream=True)``:
it yields ``{"progress": fraction}`` while the engine works in a thread and
finally ``{"diarization": Diarization}``. The engine's progress callback runs
in that thread, so it hands each fraction to the event loop with
``call_soon_threadsafe`` through an ``asyncio.Queue``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
from ray import serve

from core.capability_args import DiarizerArgs
from engines.diarization.base import DIARIZATION_RATE, Diarization, DiarizationEngine
from engines.registry import start_engine

#: Progress reports closer together than this fraction are not sent.
_PROGRESS_STEP = 0.01


@serve.deployment(name="Diarizer", ray_actor_options={"num_cpus": 0.05}, max_ongoing_requests=2)
class Diarizer:
    """Finds who speaks when in 16 kHz mono audio."""

    def __init__(self, spec: DiarizerArgs | dict[str, Any]) -> None:
        args = DiarizerArgs.model_validate(spec)
        self.engine = start_engine(args.engine, args.options, DiarizationEngine)
        self._warm_up()

    def _warm_up(self) -> None:
        """One second of a synthetic voice-like tone, so the first request does not pay graph initialisation."""
        t = np.arange(DIARIZATION_RATE) / DIARIZATION_RATE
        tone = 0.3 * np.sin(2 * np.pi * 140 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
        self.engine.diarize(tone.astype(np.float32))

    async def diarize_stream(
        self, audio: np.ndarray, num_speakers: int | None = None, offset: float = 0.0
    ) -> AsyncIterator[dict[str, Any]]:
        """``{"progress": f}`` items while working, then ``{"diarization": Diarization}``."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[float] = asyncio.Queue()
        last = [-1.0]

        def on_progress(fraction: float) -> None:
            if fraction - last[0] >= _PROGRESS_STEP or fraction >= 1.0:
                last[0] = fraction
                loop.call_soon_threadsafe(queue.put_nowait, fraction)

        work = asyncio.ensure_future(
            asyncio.to_thread(self.engine.diarize, audio, num_speakers=num_speakers, offset=offset, on_progress=on_progress)
        )
        while not work.done():
            getter = asyncio.ensure_future(queue.get())
            await asyncio.wait({work, getter}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield {"progress": getter.result()}
            else:
                getter.cancel()
        while not queue.empty():
            yield {"progress": queue.get_nowait()}
        result: Diarization = work.result()
        yield {"diarization": result}

    async def diarize(self, audio: np.ndarray, num_speakers: int | None = None, offset: float = 0.0) -> Diarization:
        """The diarization of ``audio`` (no progress reports)."""
        result: Diarization = await asyncio.to_thread(self.engine.diarize, audio, num_speakers=num_speakers, offset=offset)
        return result

    def ready(self) -> bool:
        self.engine.health()
        return True

    def check_health(self) -> None:
        self.engine.health()
