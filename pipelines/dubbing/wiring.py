"""Connects dubbing to the running service: the TTS deployment, the voice cloner, in-process separation, voice ranking."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from engines.dubbing.separation import separate_track
from engines.dubbing.wav_track import WavTrack
from engines.tts.synthesizer import SpeechRequest
from engines.tts.voice_table import VoiceTable
from pipelines.dubbing.dubber import DubbingDeps
from pipelines.services import WorkerServices


@functools.lru_cache(maxsize=1)
def _denoiser(pool_size: int) -> Any:
    """One DeepFilterNet per worker process, loaded on the first dubbing job that keeps background."""
    from engines.audio.denoise import DeepFilterDenoiser

    return DeepFilterDenoiser(pool_size=pool_size)


def dubbing_deps(services: WorkerServices) -> DubbingDeps | None:
    """Dubbing's dependencies, or None when no TTS deployment runs."""
    tts = services.handles.get("tts")
    if tts is None:
        return None
    args = services.args.dubbing

    async def synthesize(request: SpeechRequest, semitones: float) -> tuple[np.ndarray, int]:
        audio, rate = await tts.synthesize.remote(request, semitones)
        return np.asarray(audio, np.float32), int(rate)

    async def voice_catalogue(lang: str) -> list[dict[str, Any]]:
        voices: list[dict[str, Any]] = await tts.voice_catalogue.remote(lang)
        return voices

    async def separate_audio(
        span: WavTrack, speech: Path, background: Path, report: Callable[[float], None]
    ) -> tuple[WavTrack, WavTrack]:
        denoiser = await asyncio.to_thread(_denoiser, args.separation_threads)
        return await asyncio.to_thread(separate_track, span, speech, background, denoiser, on_progress=report)

    cloner = services.handles.get("voice_cloner")

    async def fit_voice(sample: bytes, lang: str, gender: str) -> dict[str, Any]:
        """A voice fitted to one speaker's speech by the VoiceCloner deployment (its checks, then a fit)."""
        assert cloner is not None
        prepared = await cloner.prepare.remote(sample, False)  # already the separated speech: no second denoise
        fitted = await cloner.fit.remote(prepared, lang, gender)
        return {"engine": fitted.engine, "style": fitted.style, "quality_score": fitted.quality_score}

    return DubbingDeps(
        synthesize,
        voice_catalogue,
        separate_audio,
        VoiceTable.load(args.voice_ranking),
        fit_voice=fit_voice if cloner is not None else None,
    )
