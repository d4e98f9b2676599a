"""The VoiceCloner deployment: checks samples and fits voices with the configured cloning engine."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from ray import serve

from core import metrics
from core.capability_args import VoiceClonerArgs
from engines.registry import start_engine
from engines.voice.cloner import FittedVoice, PreparedSample, VoiceCloneEngine


@serve.deployment(name="VoiceCloner", ray_actor_options={"num_cpus": 0.05}, max_ongoing_requests=4)
class VoiceCloner:
    """``prepare`` refuses bad samples at once; ``fit`` trains (one at a time per replica, others queue)."""

    def __init__(self, spec: VoiceClonerArgs | dict[str, Any]) -> None:
        args = VoiceClonerArgs.model_validate(spec)
        self.engine = start_engine(args.engine, args.options, VoiceCloneEngine)

    async def prepare(self, sample: bytes, noise_reduction: bool = True) -> PreparedSample:
        return await asyncio.to_thread(self._prepare, sample, noise_reduction)

    def _prepare(self, sample: bytes, noise_reduction: bool) -> PreparedSample:
        with tempfile.TemporaryDirectory(prefix="voice-sample-") as folder:
            path = Path(folder) / "sample"
            path.write_bytes(sample)
            return self.engine.prepare(str(path), noise_reduction=noise_reduction)

    async def fit(self, sample: PreparedSample, lang: str, gender: str, enhance: bool = False) -> FittedVoice:
        """One training (synchronous clones and queued ones alike), counted by outcome."""
        try:
            fitted = await asyncio.to_thread(self.engine.fit, sample, lang, gender, enhance=enhance)
        except Exception:
            metrics.voice_training("failed")
            raise
        metrics.voice_training("ready")
        return fitted

    def describe(self) -> dict[str, Any]:
        return self.engine.describe()

    def ready(self) -> bool:
        self.engine.health()
        return True

    def check_health(self) -> None:
        self.engine.health()
