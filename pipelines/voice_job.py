"""The ``voice`` job handler: trains a cloned voice queued by ``POST /v1/voice/clone``.

The prepared speech (checked, denoised, voiced parts only) waits in the file
store; the handler fits the voice through the VoiceCloner deployment and
marks the voice ``ready``. A training that fails marks the voice ``failed``
with code 3003 (its quota slot is released) and the task fails with the
same error, so the callback reports it; a VoiceCloner that is busy or down
leaves the job to be retried, and a worker that dies mid-training leaves its
job pending, to be reclaimed by another (the voice stays ``processing``
until one of them finishes it). After ``max_deliveries`` interrupted runs the
voice is marked failed too (:meth:`VoiceJobHandler.on_failed`).
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

import numpy as np
import soundfile

from core import metrics
from core.errors import ErrorGroup, ErrorKind, resolve
from core.tasks import Task
from core.voices import FAILED, READY, VoiceStore
from deployments.engines.errors import EngineUnavailable, InvalidInput
from deployments.engines.voice.cloner import PREPARED_RATE, FittedVoice, PreparedSample
from pipelines.job_runner import JobContext
from pipelines.outcome import Done, Failed, Outcome

log = logging.getLogger("mediatrans.worker")

CLONE_FAILED_CODE = str(resolve(ErrorGroup.VOICE, ErrorKind.CLONE_FAILED)[1])


class VoiceJobHandler:
    """Runs voice trainings (contract 3.2: processing → ready, or failed with 3003)."""

    error_group = ErrorGroup.VOICE
    first_stage = "training"

    async def run(self, task: Task, ctx: JobContext) -> Outcome:
        params = task.params
        voices = _voices(ctx)
        voice = await voices.get(params["voice_id"])
        if voice is None:
            return Failed({"code": "2005", "message": "The voice was deleted before its training finished."})
        cloner = ctx.services.handles.get("voice_cloner")
        if cloner is None:
            raise EngineUnavailable("no VoiceCloner deployment reachable from this worker")
        await ctx.report("training", 10, 30)
        sample = await self._sample(ctx, params)
        try:
            fitted: FittedVoice = await cloner.fit.remote(sample, params["lang"], params["gender"], bool(params["enhance"]))
        except (EngineUnavailable, asyncio.CancelledError):
            raise
        except Exception as exc:
            log.warning("voice %s: training failed: %s", voice.voice_id, exc)
            error = {"code": CLONE_FAILED_CODE, "message": _reason(exc)}
            await voices.finish(voice, FAILED, error=error)
            return Failed(error)
        try:
            ready = await voices.finish(
                voice, READY, quality_score=fitted.quality_score, engine=fitted.engine, style=fitted.style
            )
        except KeyError:
            return Failed({"code": "2005", "message": "The voice was deleted before its training finished."})
        log.info("voice %s ready: score %.3f %s", voice.voice_id, fitted.quality_score, fitted.details)
        return Done(ready.public())

    async def on_failed(self, task: Task, services: Any) -> None:
        """A task failed without :meth:`run` deciding it (interrupted too often): the voice fails too."""
        store = VoiceStore(services.redis)
        voice = await store.get(task.params.get("voice_id", ""))
        if voice is not None and voice.status not in (READY, FAILED):
            error = {"code": CLONE_FAILED_CODE, "message": str((task.error or {}).get("message", "Training failed."))}
            await store.finish(voice, FAILED, error=error)
            metrics.voice_training("interrupted")  # never reached the cloner's own count

    async def _sample(self, ctx: JobContext, params: dict[str, Any]) -> PreparedSample:
        path = await ctx.services.files.fetch(params["sample_key"], ctx.workdir / "speech.wav")
        speech, rate = await asyncio.to_thread(_read_wav, path.read_bytes())
        if rate != PREPARED_RATE:
            raise InvalidInput(f"stored speech is at {rate} Hz, expected {PREPARED_RATE}")
        meta = params.get("sample_meta", {})
        return PreparedSample(speech=speech, **{k: meta[k] for k in _META if k in meta})


_META = ("duration_s", "speech_s", "snr_db", "gender", "gender_confidence", "denoised")


def _voices(ctx: JobContext) -> VoiceStore:
    return VoiceStore(ctx.services.redis)


def _read_wav(data: bytes) -> tuple[np.ndarray, int]:
    samples, rate = soundfile.read(io.BytesIO(data), dtype="float32")
    return samples, rate


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
    return f"Clone training failed: {text[:300]}"
