"""The TTS deployment: the configured speech engines behind Serve, streaming sentence by sentence."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
from ray import serve

from deployments.engines.registry import start_engine
from deployments.engines.tts.base import TtsEngine
from deployments.engines.tts.synthesizer import SpeechRequest, Synthesizer

_DONE = object()


@serve.deployment(name="TTS", ray_actor_options={"num_cpus": 0.2}, max_ongoing_requests=8)
class TTS:
    """Speaks text with native or cloned voices; lists its voices and languages."""

    def __init__(self, spec: dict[str, Any]) -> None:
        engines: dict[str, TtsEngine] = {}
        for engine_spec in spec["engines"]:
            engine = start_engine(engine_spec, TtsEngine)
            engines[engine.name] = engine
        self.synthesizer = Synthesizer(engines, spec.get("defaults"))
        self._warm_up()

    def _warm_up(self) -> None:
        """One short sentence per engine, so the first request does not pay graph initialisation."""
        for engine in self.synthesizer.engines.values():
            voice = engine.voices()[0]
            engine.speak("Hello.", voice.id, voice.languages[0])

    def plan(self, request: SpeechRequest) -> dict[str, Any]:
        """What a request will produce (content type, voice, rate); raises the request's errors before streaming."""
        plan = self.synthesizer.plan(request)
        return {"content_type": plan.content_type, "voice": plan.voice_id, "sample_rate": plan.sample_rate,
                "engine": plan.engine.name}  # fmt: skip

    async def stream(self, request: SpeechRequest) -> AsyncIterator[bytes]:
        """Encoded audio chunks, one per sentence (call with ``handle.options(stream=True)``)."""
        chunks = self.synthesizer.stream(request)
        while (chunk := await asyncio.to_thread(next, chunks, _DONE)) is not _DONE:
            yield chunk  # type: ignore[misc]

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
