"""The ``voice`` job handler: trains a cloned voice queued by ``POST /v1/voice/clone``.

The task's record holds a :class:`~core.specs.voice.VoiceJobSpec`. The
prepared speech (checked, denoised, voiced parts only) waits in the file
store; the handler fits the voice through the VoiceCloner deployment and
marks the voice ``ready``. A training that fails marks the voice ``failed``
with code 3003 (its quota slot is released and its ``voice_clones`` charge
refunded: ``pipelines.voice_lifecycle``) and the task fails with the same
error, so the callback reports it; a VoiceCloner that is busy or down leaves
the job to be retried, and a worker that dies mid-training leaves its job
pending, to be reclaimed by another (the voice stays ``processing`` until
one of them finishes it). After ``max_deliveries`` interrupted runs the
voice is marked failed too (:meth:`VoiceJobHandler.on_failed`); one whose
task expired, or that never got one, is failed by housekeeping. A voice
ends once: a run that finds it already ended reports that ending instead of
training again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

import numpy as np
import soundfile

from core import metrics
from core.boundary import public_message, unwrap
from core.errors import ErrorGroup, ErrorKind, resolve
from core.specs.voice import VoiceJobSpec
from core.tasks import Task
from core.voices import PROCESSING, READY, Voice, VoiceStore
from engines.audio.decode import MAX_DECODE_S
from engines.errors import EngineError, EngineUnavailable, InvalidInput
from engines.voice.cloner import PREPARED_RATE, FittedVoice, PreparedSample
from pipelines.job_runner import JobContext
from pipelines.outcome import Done, Failed, Outcome
from pipelines.voice_lifecycle import CLONE_FAILED_CODE, fail_voice

log = logging.getLogger("mediatrans.worker")

#: The voice table's 404 (2005): the voice is gone, so is the training.
DELETED = {
    "code": str(resolve(ErrorGroup.VOICE, ErrorKind.NOT_FOUND)[1]),
    "message": "The voice was deleted before its training finished.",
}


class VoiceJobHandler:
    """Runs voice trainings (contract 3.2: processing → ready, or failed with 3003)."""

    error_group = ErrorGroup.VOICE
    first_stage = "training"

    async def run(self, task: Task, ctx: JobContext) -> Outcome:
        spec = VoiceJobSpec.model_validate(task.params)
        voices = _voices(ctx)
        voice = await voices.get(spec.voice_id)
        if voice is None:
            return Failed(DELETED)
        if voice.status != PROCESSING:  # ended already (a rerun, or failed by housekeeping): nothing to train
            return _ended(voice)
        cloner = ctx.services.handles.get("voice_cloner")
        if cloner is None:
            raise EngineUnavailable("no VoiceCloner deployment reachable from this worker")
        await ctx.report("training", 10, 30)
        sample = await self._sample(ctx, spec)
        try:
            fitted: FittedVoice = await cloner.fit.remote(sample, spec.lang, spec.gender, spec.enhance)
        except (EngineUnavailable, asyncio.CancelledError):
            raise
        except Exception as exc:
            log.warning("voice %s: training failed: %s", voice.voice_id, exc)
            error = {"code": CLONE_FAILED_CODE, "message": _reason(exc)}
            try:
                failed = await fail_voice(ctx.services, voice, error)
            except KeyError:
                return Failed(DELETED)
            return Failed(error) if failed is not None else await self._current(voices, voice)
        try:
            ready = await voices.finish(
                voice, READY, quality_score=fitted.quality_score, engine=fitted.engine, style=fitted.style
            )
        except KeyError:
            return Failed(DELETED)
        if ready is None:  # housekeeping ended it while it trained
            return await self._current(voices, voice)
        log.info("voice %s ready: score %.3f %s", voice.voice_id, fitted.quality_score, fitted.details)
        return Done(ready.public())

    async def on_failed(self, task: Task, services: Any) -> None:
        """A task failed without :meth:`run` deciding it (interrupted too often): the voice fails too."""
        voice = await VoiceStore(services.redis).get(VoiceJobSpec.model_validate(task.params).voice_id)
        if voice is not None and voice.status == PROCESSING:
            error = {"code": CLONE_FAILED_CODE, "message": str((task.error or {}).get("message", "Training failed."))}
            with contextlib.suppress(KeyError):
                if await fail_voice(services, voice, error) is not None:
                    metrics.voice_training("interrupted")  # never reached the cloner's own count

    @staticmethod
    async def _current(voices: VoiceStore, voice: Voice) -> Outcome:
        now = await voices.get(voice.voice_id)
        return _ended(now) if now is not None else Failed(DELETED)

    async def _sample(self, ctx: JobContext, spec: VoiceJobSpec) -> PreparedSample:
        path = await ctx.services.files.fetch(spec.sample_key, ctx.workdir / "speech.wav")
        speech = await asyncio.to_thread(read_speech, path)
        return spec.sample_meta.with_speech(speech)


def _ended(voice: Voice) -> Outcome:
    """The task's outcome for a voice that already ended: its result, or its failure."""
    if voice.status == READY:
        return Done(voice.public())
    return Failed(dict(voice.error or {"code": CLONE_FAILED_CODE, "message": "Clone training failed."}))


def _voices(ctx: JobContext) -> VoiceStore:
    return VoiceStore(ctx.services.redis)


def read_speech(path: Path) -> np.ndarray:
    """The stored prepared speech: mono float32 at ``PREPARED_RATE``, at most ``MAX_DECODE_S`` seconds of it.

    Checked from the header before anything is read, so a damaged or foreign file cannot size the read.
    """
    with soundfile.SoundFile(path) as wav:
        if wav.samplerate != PREPARED_RATE or wav.channels != 1:
            raise InvalidInput(f"stored speech is {wav.channels} channels at {wav.samplerate} Hz, expected mono {PREPARED_RATE}")
        if wav.frames > MAX_DECODE_S * PREPARED_RATE:
            raise InvalidInput(f"stored speech holds {wav.frames} samples, over {MAX_DECODE_S:g} s")
        return wav.read(frames=int(MAX_DECODE_S * PREPARED_RATE), dtype="float32")


def _reason(exc: BaseException) -> str:
    """The client's line for a failed fit: the cloner's own message when it is safe (``core.boundary``)."""
    original = unwrap(exc)
    reason = public_message(str(original), "") if isinstance(original, EngineError) else ""
    return f"Clone training failed: {reason}" if reason else "Clone training failed."
