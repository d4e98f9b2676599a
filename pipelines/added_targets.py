"""The tasks of ``additional_target_langs`` (docs/video-languages.md): held until their video is recognized.

A submission with more target languages makes, besides its own task, one added-language task per extra
language (``VideoJobSpec.translation_of`` names the submission's task, whose ``dependents`` lists them).
They are stored *held*: queued and counted, but without a job (``TaskStore.create(held=True)``), so no
worker picks one up before the transcript it translates exists. Then:

* the submission's task, once its transcript is stored and its result made, releases them
  (:func:`release_targets`): each gets its job and runs as any added language, without recognition;
* if it fails for good, they fail with its error (:func:`fail_targets`, the handler's ``on_failed``), and
  their callbacks are sent;
* housekeeping (:func:`settle_waiting`) does either for a task whose parent ended while the worker that ran
  it died before it could, and forgets held ids whose task is gone. A held task also expires, as any
  queued task, 48 h after submission.
"""

from __future__ import annotations

import logging
from typing import Any

from core.accounts import Account
from core.errors import ApiError
from core.specs.translation_of import TranslationOf
from core.specs.video import VideoJobSpec, feature_charges
from core.tasks import InvalidTransition, Task, TaskState
from pipelines.services import WorkerServices

log = logging.getLogger("mediatrans.worker")

PARENT_FAILED = "The task this language was added to failed, so there is no recognition to translate: {message}"
PARENT_GONE = "The task this language was added to no longer exists; resubmit the video."


async def charge_targets(services: WorkerServices, account: Account, spec: VideoJobSpec, duration: float) -> None:
    """The features of the languages held for a ``video_url`` task, charged once its duration is known (as the
    task's own: per task, at most once). A language the account's quota cannot pay fails; the video goes on."""
    added = spec.model_copy(update={"enable_diarization": False})  # nothing is diarized again
    for task_id in spec.dependents:
        try:
            for metric, amount in feature_charges(added, duration):
                await services.quotas.consume_once(account, metric, amount, charge_id=task_id)
        except ApiError as exc:
            await _fail(services, task_id, {"code": "QUOTA_EXCEEDED", "message": exc.message})


async def release_targets(services: WorkerServices, spec: VideoJobSpec) -> None:
    """Give each held task of ``spec.dependents`` its job (its parent's transcript is stored)."""
    for task_id in spec.dependents:
        if not await services.tasks.release(task_id):
            log.info("added language %s was not held (released before, or ended)", task_id)


async def fail_targets(services: WorkerServices, parent: Task) -> None:
    """Fail each still-held task of the failed ``parent`` with its error, and send their callbacks."""
    error = parent.error or {"code": "INTERNAL_ERROR", "message": "The task failed."}
    for task_id in _dependents(parent):
        await _fail(
            services, task_id, {"code": str(error.get("code")), "message": PARENT_FAILED.format(message=error.get("message"))}
        )


async def settle_waiting(services: WorkerServices) -> None:
    """Housekeeping: release the held tasks whose parent completed, fail those whose parent failed or is gone."""
    tasks = services.tasks
    for task_id in await tasks.held_ids():
        child = await tasks.get(task_id)
        if child is None or child.status.terminal:
            await tasks.drop_held(task_id)
            continue
        origin = child.params.get("translation_of") if isinstance(child.params, dict) else None
        parent = await tasks.get(TranslationOf.model_validate(origin).parent_task_id) if origin else None
        if parent is None:
            await _fail(services, task_id, {"code": "TASK_EXPIRED", "message": PARENT_GONE})
        elif parent.status is TaskState.COMPLETED:
            await tasks.release(task_id, child.kind)
        elif parent.status.terminal:
            error = parent.error or {"code": "TASK_EXPIRED", "message": "The task expired."}
            await _fail(
                services, task_id, {"code": str(error.get("code")), "message": PARENT_FAILED.format(message=error.get("message"))}
            )


def _inherited(error: dict[str, Any] | None) -> dict[str, str]:
    """A held task's error from its parent's: the same code, and a message that says whose failure it is."""
    error = error or {"code": "INTERNAL_ERROR", "message": "The task failed."}
    return {"code": str(error.get("code")), "message": PARENT_FAILED.format(message=error.get("message"))}


def _dependents(parent: Task) -> list[str]:
    params: Any = parent.params
    return list(params.get("dependents") or []) if isinstance(params, dict) else []


async def _fail(services: WorkerServices, task_id: str, error: dict[str, str]) -> None:
    """A held task failed (never run), and its callback scheduled."""
    try:
        failed = await services.tasks.settle(task_id, TaskState.FAILED, error=error)
    except (InvalidTransition, KeyError):  # ended meanwhile, or gone
        await services.tasks.drop_held(task_id)
        return
    if failed.params.get("callback_url"):
        account = await services.accounts.get(failed.account_id)
        if account is not None:
            await services.webhooks.schedule(failed, account)
