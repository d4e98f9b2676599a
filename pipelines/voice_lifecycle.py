"""How an asynchronous voice training ends when it fails, and the sweep that ends the ones nothing else will.

One rule for every failed clone, synchronous or not: the voice's
``voice_clones`` charge is refunded (a synchronous clone refunds it in the
ingress, ``serve_app.voice_clone``; a training refunds it here, into the
month it was charged in). :func:`fail_voice` marks the voice ``failed``
(3003), releasing its slot, and refunds, once: the store changes only a
voice still ``processing``, so a worker and the sweep never both refund.

:func:`end_stranded_voices` (worker housekeeping) fails every voice that has
been ``processing`` longer than a grace period without a live training task:

* its task expired (not finished within 48 h; the task store expires it when read);
* its task failed, completed or vanished while the voice was not told (a hook lost to an outage);
* it has no task: the ingress stopped between writing the voice and queuing its training.

A voice failed here whose task later runs anyway is not trained
(:class:`~pipelines.voice_job.VoiceJobHandler` sees it failed).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from core.billing import refund
from core.errors import ErrorGroup, ErrorKind, resolve
from core.tasks import Task, TaskState
from core.voices import FAILED, PROCESSING, Voice, VoiceStore

log = logging.getLogger("mediatrans.worker")

CLONE_FAILED_CODE = str(resolve(ErrorGroup.VOICE, ErrorKind.CLONE_FAILED)[1])
#: A processing voice younger than this is left alone: its ingress may still be queuing the training.
STRANDED_GRACE_S = 600.0
_BATCH = 200

EXPIRED_MESSAGE = "Clone training did not finish within 48 hours; clone the voice again."
NEVER_QUEUED_MESSAGE = "Clone training was never queued; clone the voice again."


async def fail_voice(services: Any, voice: Voice, error: dict[str, str]) -> Voice | None:
    """Mark ``voice`` failed with ``error`` (slot released) and refund its clone; None when it had already ended.

    ``services`` has ``redis``, ``accounts`` and ``quotas`` (the worker's). KeyError when the voice was deleted.
    """
    failed = await VoiceStore(services.redis).finish(voice, FAILED, error=error)
    if failed is None:
        return None
    account = await services.accounts.get(voice.account_id)
    if account is not None:
        await refund(services.quotas, account, [("voice_clones", 1)], charged_at=voice.created_at)
    return failed


async def end_stranded_voices(services: Any, grace_s: float = STRANDED_GRACE_S, now: float | None = None) -> list[str]:
    """Fail every voice ``processing`` for over ``grace_s`` whose training task is not live; returns their ids.

    ``services`` is the worker's (``redis``, ``tasks``, ``accounts``, ``quotas``, ``webhooks``). A voice
    whose task expired gets the task's callback scheduled (an expiry has no other sender), so
    ``callback_url`` hears that the voice failed.
    """
    store = VoiceStore(services.redis)
    before = (time.time() if now is None else now) - grace_s
    ended: list[str] = []
    offset = 0
    while batch := await store.processing_before(before, offset=offset, limit=_BATCH):
        for voice_id in batch:
            outcome = await _end_if_stranded(services, store, voice_id)
            offset += outcome == _TRAINING  # the others left the index
            if outcome == _ENDED:
                ended.append(voice_id)
    if ended:
        log.warning("failed %d voices left processing without a training: %s", len(ended), ", ".join(ended[:20]))
    return ended


_TRAINING, _ENDED, _GONE = "training", "ended", "gone"


async def _end_if_stranded(services: Any, store: VoiceStore, voice_id: str) -> str:
    voice = await store.get(voice_id)
    if voice is None or voice.status != PROCESSING:
        await store.forget_processing(voice_id)
        return _GONE
    task = await services.tasks.get(voice.task_id) if voice.task_id else None  # an overdue task expires as it is read
    if task is not None and not task.status.terminal:
        return _TRAINING
    try:
        failed = await fail_voice(services, voice, {"code": CLONE_FAILED_CODE, "message": _why(task)})
    except KeyError:  # deleted meanwhile
        return _GONE
    if failed is None:
        return _GONE
    if task is not None and task.status is TaskState.EXPIRED:
        account = await services.accounts.get(task.account_id)
        if account is not None:
            await services.webhooks.schedule(task, account)
    return _ENDED


def _why(task: Task | None) -> str:
    if task is None:
        return NEVER_QUEUED_MESSAGE
    if task.status is TaskState.EXPIRED:
        return EXPIRED_MESSAGE
    message = str((task.error or {}).get("message") or "")
    return message if task.status is TaskState.FAILED and message else "Clone training failed."
