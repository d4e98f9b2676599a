"""The TTS deployment: the configured speech engines behind Serve, streaming sentence by sentence."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Generator
from typing import Any

import numpy as np
from ray import serve

from core.capability_args import TtsArgs
from engines.registry import start_engine
from engines.tts.base import TtsEngine
from engines.tts.synthesizer import SpeechPlan, SpeechRequest, Synthesizer
from engines.tts.voice_table import VoiceTable

_DONE = object()

log = logging.getLogger(__name__)


@serve.deployment(name="TTS", ray_actor_options={"num_cpus": 0.2}, max_ongoing_requests=8)
class TTS:
    """Speaks text with native or cloned voices; lists its voices and languages."""

    def __init__(self, spec: TtsArgs | dict[str, Any]) -> None:
        args = TtsArgs.model_validate(spec)
        engines: dict[str, TtsEngine] = {}
        for engine_spec in args.engines:
            engine = start_engine(engine_spec.engine, engine_spec.options, TtsEngine)
            engines[engine.name] = engine
        self.synthesizer = Synthesizer(engines, args.defaults, VoiceTable.load(args.voice_table))
        self._streams_open = 0
        self._chunks_made = 0
        self._warm_up()

    def _warm_up(self) -> None:
        """One short sentence per engine, so the first request does not pay graph initialisation."""
        for engine in self.synthesizer.engines.values():
            voice = engine.voices()[0]
            engine.speak("Hello.", voice.id, voice.languages[0])

    def plan(self, request: SpeechRequest) -> SpeechPlan:
        """What a request will produce (engine, voice, content type, rate); raises the request's errors before streaming."""
        return self.synthesizer.plan(request)

    async def stream(self, request: SpeechRequest, plan: SpeechPlan) -> AsyncIterator[bytes]:
        """Encoded audio chunks of ``request`` as :meth:`plan` planned it, one per sentence (call with
        ``handle.options(stream=True)``).

        Sentences are synthesized one at a time in a worker thread, so a
        cancelled call (the client went away) stops after the sentence in
        progress: its thread is left to finish, then closes the synthesizer's
        generator (closing it sooner would fail while it runs).
        """
        chunks = self.synthesizer.stream(request, plan)
        pending: asyncio.Future[Any] | None = None
        self._streams_open += 1
        try:
            while True:
                pending = asyncio.ensure_future(asyncio.to_thread(next, chunks, _DONE))
                chunk = await asyncio.shield(pending)
                if chunk is _DONE:
                    return
                self._chunks_made += 1
                yield chunk
        finally:
            self._streams_open -= 1
            if pending is not None and not pending.done():
                pending.add_done_callback(lambda done: _close_after(done, chunks))
            else:
                chunks.close()

    def stream_stats(self) -> dict[str, int]:
        """This replica's open streams and the chunks (sentences) it has synthesized for streams since it started."""
        return {"open": self._streams_open, "chunks": self._chunks_made}

    async def synthesize(self, request: SpeechRequest, semitones: float = 0.0) -> tuple[np.ndarray, int]:
        """One dubbing line as raw float32 samples and their rate (the pipeline times and mixes it)."""
        return await asyncio.to_thread(self.synthesizer.render, request, semitones)

    def voice_catalogue(self, lang: str) -> list[dict[str, Any]]:
        """Voices that speak ``lang``, best first per engine, with gender and measured quality (dubbing voice choice)."""
        return [{**v.public(), "quality": v.quality} for v in self.synthesizer.voices(lang)]

    def voices(self) -> list[dict[str, Any]]:
        return [v.public() for v in self.synthesizer.voices()]

    def languages(self) -> list[str]:
        return self.synthesizer.languages()

    def ready(self) -> bool:
        for engine in self.synthesizer.engines.values():
            engine.health()
        return True

    def check_health(self) -> None:
        self.ready()


def _close_after(sentence: asyncio.Future[Any], chunks: Generator[bytes, None, None]) -> None:
    """Close a stream's generator once its last sentence's thread is done (its result no one reads)."""
    if not sentence.cancelled() and sentence.exception() is not None:
        log.info("tts sentence after cancellation failed: %s", sentence.exception())
    chunks.close()
