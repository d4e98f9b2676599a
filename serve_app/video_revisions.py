"""Revisions of video tasks at the edge (docs/video-revisions.md): ``GET …/transcript`` and ``POST …/revise``.

Only a completed video task of the caller's account is reviewed or revised (404 for another's or a missing
one, 409 while it is not completed or once its stored transcript is gone). A revision is refused, before
anything is charged, for edits that do not fit the transcript, an invalid combination of output choices,
a choice without effect, dubbing without its deployment or voice, a callback the service will not call,
and an account at its caps; it then charges ``video_tasks`` and the dubbed seconds (docs/billing.md).

The edits are checked here, not applied: :func:`core.specs.transcript.check_edits` says what each changes
and where moved segments end up, which is all that billing and the estimate need. The task carries only the
edits (``VideoJobSpec.revision``), and the worker (``pipelines/video_revision.py``) applies them to the same,
immutable, stored transcript: the edited transcript is built once, where it is rendered.
"""

from __future__ import annotations

import dataclasses
import math

import pydantic
from starlette.requests import Request

from core import caps
from core.accounts import Account
from core.billing import Charge, charged
from core.context import request_id_var
from core.errors import ApiError, ErrorKind
from core.specs.revision import ReviseRequest, revision_spec
from core.specs.revision_of import RevisionOf
from core.specs.transcript import EditPlan, InvalidEdit, StoredTranscript, check_edits, read_transcript
from core.specs.video import VideoJobSpec, dubbing_metric
from core.tasks import Task, TaskState, iso
from serve_app.memory_learning import learn_corrections
from serve_app.responses import validation_error
from serve_app.schemas.revisions import ReviseResponse
from serve_app.services import Services
from serve_app.video_submit import check_dubbing, check_url_field
from serve_app.video_tasks import owned_task

NOT_COMPLETED = "Only a completed task can be reviewed or revised; this one is {status}."
GONE = "This task's transcript is no longer kept: revisions are possible while its outputs are (49 hours)."


@dataclasses.dataclass(frozen=True)
class PreparedRevision:
    """A checked revision, ready to be charged and become a task.

    Attributes:
        spec: the revision task's spec (its ``revision`` carries the edits the worker applies).
        revision: that ``revision``: the parent, the place in the chain and the edits.
        transcript: the parent's stored transcript, as the edits were checked against it.
        plan: what the edits change (billing and the estimate).
    """

    spec: VideoJobSpec
    revision: RevisionOf
    transcript: StoredTranscript
    plan: EditPlan


async def completed_task(request: Request) -> tuple[Account, Task]:
    """The caller's completed video task of the path."""
    account, task = await owned_task(request, kind="video")
    if task.status is not TaskState.COMPLETED:
        raise ApiError(ErrorKind.CONFLICT, NOT_COMPLETED.format(status=task.status.value))
    return account, task


async def stored_transcript(services: Services, task: Task) -> StoredTranscript:
    """The task's stored transcript; 409 CONFLICT once it is no longer kept."""
    transcript = await read_transcript(services.files, task.task_id)
    if transcript is None:
        raise ApiError(ErrorKind.CONFLICT, GONE)
    return transcript


async def prepare_revision(services: Services, account: Account, parent: Task, revise: ReviseRequest) -> PreparedRevision:
    """The revision of ``parent`` that ``revise`` asks for, checked as a submission is (nothing charged yet)."""
    transcript = await stored_transcript(services, parent)
    try:
        plan = check_edits(transcript, revise.segments)
    except InvalidEdit as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, str(exc)) from None
    parent_spec = VideoJobSpec.model_validate(parent.params)
    revision = RevisionOf(
        parent_task_id=parent.task_id,
        root_task_id=transcript.root_task_id or parent.task_id,
        number=transcript.revision + 1,
        edits=revise.segments,
    )
    try:
        spec = revision_spec(parent_spec, revise, revision)
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None
    await _check_choices(services, revise, spec)
    await services.tasks.check_caps(account.id, "video", caps.resolve(account))
    return PreparedRevision(spec, revision, transcript, plan)


async def create_revision(services: Services, account: Account, prepared: PreparedRevision) -> ReviseResponse:
    """Charge the revision and queue its task (the charges are refunded when the task is not created)."""
    spec, transcript, plan = prepared.spec, prepared.transcript, prepared.plan
    learned = await learn_corrections(services, account, spec.memory_id, transcript, prepared.revision.edits)
    async with charged(services.quotas, account, revision_charges(spec, transcript, plan)):
        estimate = await services.speed.estimate(spec.speed_kind, _revised_seconds(spec, transcript, plan))
        task = await services.tasks.create(
            account.id,
            spec.stored(),
            kind="video",
            request_id=request_id_var.get(),
            estimated_seconds=estimate,
            limits=caps.resolve(account),
        )
    return ReviseResponse(
        task_id=task.task_id,
        status=task.status.value,
        created_at=iso(task.created_at),
        estimated_seconds=estimate,
        parent_task_id=prepared.revision.parent_task_id,
        revision=prepared.revision.number,
        memory_learned=learned if spec.memory_id is not None else None,
    )


async def _check_choices(services: Services, revise: ReviseRequest, spec: VideoJobSpec) -> None:
    """As at submission: dubbing needs its deployment and a voice for the language; no choice without effect."""
    given = revise.choices()
    if not spec.enable_dubbing:
        for name in ("dubbing_voice", "dubbing_speed", "dubbing_bg_music"):
            if name in given:
                raise ApiError(ErrorKind.INVALID_PARAMETER, f"{name} applies only with enable_dubbing=true.")
    if spec.enable_dubbing and "enable_dubbing" in given:
        await check_dubbing(services, spec.target_lang)
    if spec.callback_url:
        await check_url_field(services, "callback_url", spec.callback_url)


def revision_charges(spec: VideoJobSpec, transcript: StoredTranscript, plan: EditPlan) -> list[Charge]:
    """A revision counts as a video task; a dub is charged the seconds of the lines spoken again (docs/billing.md).

    Nothing is recognized, so no ``video_minutes``. A dub newly switched on speaks every line. Seconds are
    the segments' once edited (``plan``).
    """
    charges: list[Charge] = [("video_tasks", 1)]
    if spec.enable_dubbing:
        parent_dubbed = any(s.dubbing is not None for s in transcript.segments)
        spoken = [
            s for s in transcript.segments if not parent_dubbed or plan.changes.get(s.id, set()) & {"source", "translation"}
        ]
        seconds = sum(end - start for start, end in map(plan.span_of, spoken))
        if seconds > 0:
            charges.append((dubbing_metric(spec.dubbing_voice), max(1, math.ceil(seconds))))
    return charges


def _revised_seconds(spec: VideoJobSpec, transcript: StoredTranscript, plan: EditPlan) -> float:
    """Media seconds the estimate scales with: the dubbed or burned range, or the edited segments' for subtitles."""
    if spec.enable_dubbing or spec.burns:
        return max(1.0, transcript.span[1] - transcript.span[0])
    edited = [plan.span_of(s) for s in transcript.segments if s.id in plan.changes]
    return max(1.0, sum(end - start for start, end in edited) / 10)
