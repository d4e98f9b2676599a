"""Several target languages on one video submission (extension, docs/video-languages.md).

``additional_target_langs`` (comma-separated, at most ``MAX_ADDITIONAL_TARGETS``) names languages besides
``target_lang``. The submission's task recognizes the video once; each extra language is an added-language
task (``core.specs.added_language``) of it, created *held* (``TaskStore.create(held=True)``): queued and
counted, without a job until the submission's task has stored its transcript and releases it
(``pipelines/added_targets.py``). Each has the submission's output choices, steering and callback, the named
glossaries that are for its own pair (serve_app/steering.py), and its own result.

Checked with the submission, before anything is charged: every code is offered and distinct (from
``target_lang`` too), the spoken language (when given) translates into each, dubbing has a voice for each,
and the account can hold all the tasks (``pending_tasks``). Charged per extra language: one ``video_tasks``,
and for an upload the features it runs over the processed range (``professional_minutes``, dubbed seconds;
for a ``video_url`` those are charged when the worker has probed it); never ``video_minutes`` or
``diarization_minutes``. All the tasks are created, or none.
"""

from __future__ import annotations

import contextlib
import dataclasses
import uuid
from collections.abc import Mapping
from typing import Any

from core import caps
from core.accounts import Account
from core.billing import charged
from core.context import request_id_var
from core.errors import ApiError, ErrorKind
from core.specs.added_language import AddLanguageRequest, added_language_spec
from core.specs.translation_of import TranslationOf
from core.specs.video import GlossarySnapshot, VideoJobSpec, processed_seconds
from core.tasks import Task, TaskState, iso
from serve_app.schemas.video import AdditionalTask, SubmitResponse
from serve_app.services import Services
from serve_app.steering import snapshots
from serve_app.video_languages import language_charges
from serve_app.video_submit import Submission, check_dubbing

MAX_ADDITIONAL_TARGETS = 10
FIELD = "additional_target_langs"
REFUSED = {"code": "INTERNAL_ERROR", "message": "The submission this task belonged to was refused; nothing was charged."}


def additional_targets(services: Services, raw: str | None, target: str) -> list[str]:
    """The extra languages of ``raw`` (the field's value), canonical and distinct, in the order given (none when
    omitted)."""
    if raw is None:
        return []
    codes = [code.strip() for code in raw.split(",") if code.strip()]
    if not codes:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"{FIELD} names no language.")
    if len(codes) > MAX_ADDITIONAL_TARGETS:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"{FIELD}: at most {MAX_ADDITIONAL_TARGETS} languages, got {len(codes)}.")
    out: list[str] = []
    for code in codes:
        lang = services.catalog.resolve(code, FIELD, kind=ErrorKind.UNSUPPORTED_LANGUAGE)
        if lang == target or lang in out:
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"{FIELD}: {lang} is asked for twice (target_lang included).")
        out.append(lang)
    return out


async def with_targets(services: Services, account: Account, submission: Submission) -> Submission:
    """``submission`` with its extra languages, checked (``additional``; unchanged without any)."""
    options = submission.options
    targets = additional_targets(services, options.additional_target_langs, options.target_lang)
    if not targets:
        return submission
    await services.tasks.check_caps(account.id, "video", caps.resolve(account), tasks=1 + len(targets))
    await check_targets(services, targets, options.source_lang, options.enable_dubbing)
    glossaries = snapshots(submission.glossary_records, options.source_lang, [options.target_lang, *targets])
    glossaries.pop(options.target_lang, None)
    return dataclasses.replace(submission, additional=targets, glossaries=glossaries)


async def check_targets(services: Services, targets: list[str], source: str | None, dubbing: bool) -> None:
    """Each extra language is translated into from the spoken one (when given), and dubbed when asked."""
    offered = await services.capabilities.get()
    for lang in targets:
        if source is not None and not offered.translates(source, lang):
            raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, f"{FIELD}: {offered.refusal(source, lang)}")
        if source is None and not any(t == lang for _s, t in offered.translation_pairs):
            raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, f"{FIELD}: no language can be translated into {lang} on this service.")
        if dubbing:
            await check_dubbing(services, lang)


async def create_submitted(
    services: Services,
    account: Account,
    spec: VideoJobSpec,
    targets: list[str],
    media_seconds: float | None,
    estimate: int,
    glossaries: Mapping[str, GlossarySnapshot] | None = None,
) -> tuple[Task, list[AdditionalTask] | None]:
    """A submission's task, and with extra languages their held tasks (None without any)."""
    request_id, limits = request_id_var.get(), caps.resolve(account)
    if targets:
        return await create_with_targets(
            services, account, spec, targets, media_seconds, request_id=request_id, estimated_seconds=estimate,
            limits=limits, glossaries=glossaries or {},
        )  # fmt: skip
    task = await services.tasks.create(
        account.id, spec.stored(), kind="video", request_id=request_id, estimated_seconds=estimate, limits=limits
    )
    return task, None


def submitted_body(task: Task, estimate: int, added: list[AdditionalTask] | None) -> dict[str, Any]:
    """The answer to a submission: the task, and its extra languages' tasks when there are any."""
    body = SubmitResponse(
        task_id=task.task_id,
        status=task.status.value,
        created_at=iso(task.created_at),
        estimated_seconds=estimate,
        additional_tasks=added,
    )
    return body.model_dump(mode="json", exclude_none=True)


async def create_with_targets(
    services: Services,
    account: Account,
    spec: VideoJobSpec,
    targets: list[str],
    media_seconds: float | None,
    *,
    request_id: str,
    estimated_seconds: int,
    limits: Mapping[str, int | None],
    glossaries: Mapping[str, GlossarySnapshot] | None = None,
) -> tuple[Task, list[AdditionalTask]]:
    """The submission's task and one held task per extra language, charged; all or none.

    ``estimated_seconds`` is the submission's task's; each extra task's adds its own (they wait for it).
    """
    await services.tasks.check_caps(account.id, "video", limits, tasks=1 + len(targets))
    parent_id = uuid.uuid4().hex
    ids = {lang: uuid.uuid4().hex for lang in targets}
    origin = TranslationOf(parent_task_id=parent_id, root_task_id=parent_id)
    seconds = processed_seconds(spec, media_seconds) or 0.0
    held: list[str] = []
    async with contextlib.AsyncExitStack() as charges:
        try:
            for lang, task_id in ids.items():
                glossary = (glossaries or {}).get(lang)
                child = added_language_spec(spec, AddLanguageRequest(target_lang=lang), lang, glossary, origin)
                child = child.model_copy(update={"callback_url": spec.callback_url})
                await charges.enter_async_context(charged(services.quotas, account, language_charges(child, seconds)))
                waits = estimated_seconds + await services.speed.estimate(child.speed_kind, seconds or None)
                await services.tasks.create(
                    account.id, child.stored(), kind="video", request_id=request_id, estimated_seconds=waits, limits=limits,
                    held=True, task_id=task_id,
                )  # fmt: skip
                held.append(task_id)
            parent_spec = spec.model_copy(update={"dependents": list(ids.values())})
            parent = await services.tasks.create(
                account.id, parent_spec.stored(), kind="video", request_id=request_id, estimated_seconds=estimated_seconds,
                limits=limits, task_id=parent_id,
            )  # fmt: skip
        except BaseException:
            for task_id in held:  # invisible to the client, and no longer counted
                with contextlib.suppress(Exception):
                    await services.tasks.settle(task_id, TaskState.FAILED, error=REFUSED)
            raise
    return parent, [AdditionalTask(target_lang=lang, task_id=task_id) for lang, task_id in ids.items()]
