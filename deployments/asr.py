"""The ASR deployment: one speech-recognition engine (faster-whisper) behind Serve."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
from ray import serve

from core.capability_args import AsrArgs
from engines.asr.types import Transcript
from engines.capabilities import Capabilities
from engines.registry import create_engine


@serve.deployment(name="ASR", ray_actor_options={"num_cpus": 0.4}, max_ongoing_requests=2)
class ASR:
    """Transcribes audio chunks; reports the languages it recognises."""

    def __init__(self, spec: AsrArgs | dict[str, Any]) -> None:
        args = AsrArgs.model_validate(spec)
        self.engine: Any = create_engine(args.engine, args.options)
        self.engine.start()
        # One decode at a time per replica: the model already uses every thread it was given.
        self._lock = asyncio.Lock()

    async def transcribe(self, audio: np.ndarray, language: str | None = None, offset: float = 0.0) -> Transcript:
        async with self._lock:
            result: Transcript = await asyncio.to_thread(self.engine.transcribe, audio, language, offset)
            return result

    async def detect_language(self, audio: np.ndarray) -> tuple[str, float]:
        async with self._lock:
            result: tuple[str, float] = await asyncio.to_thread(self.engine.detect_language, audio)
            return result

    def capabilities(self) -> Capabilities:
        return Capabilities(speech_languages=self.engine.languages())

    def ready(self) -> bool:
        self.engine.health()
        return True

    def check_health(self) -> None:
        self.engine.health()
