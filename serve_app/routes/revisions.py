"""Review and revise a video task (extension, docs/video-revisions.md): its transcript, and revisions of it."""

from __future__ import annotations

import math

import pydantic
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core import caps
from core.accounts import Account
from core.context import request_id_var
from core.errors import ApiError, ErrorKind
from core.specs.revision import ReviseRequest, RevisionOf, revision_spec
from core.specs.transcript import InvalidEdit, StoredTranscript, apply_edits, read_transcript
from core.specs.video import VideoJobSpec, dubbing_metric
from core.tasks import Task, TaskState, iso
from serve_app.auth import services_of
from serve_app.billing import charged
from serve_app.bodies import parse_model, read_json
from serve_app.idempotency import fingerprint
from serve_app.responses import validation_error
from serve_app.routes.video import owned_task
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.revisions import ReviseResponse, TranscriptBody
from serve_app.services import Services
from serve_app.video_submit import check_dubbing, check_url_field

NOT_COMPLETED = "Only a completed task can be reviewed or revised; this one is {status}."
GONE = "This task's transcript is no longer kept: revisions are possible while its outputs are (49 hours)."

TRANSCRIPT_DOC = RouteDoc(
    summary="Read the transcript of a completed video task (extension)",
    description=(
        "Segments of the task's subtitles, one per translated sentence, with a stable `id`, times, speaker (diarized "
        "tasks), recognized `source`, `translation` and, for dubbed tasks, how the line was fitted. Kept as long as "
        "the task's outputs. Another account's task answers 404 TASK_NOT_FOUND."
    ),
    response=TranscriptBody,
    errors=(ErrorKind.NOT_FOUND, ErrorKind.CONFLICT, ErrorKind.RATE_LIMITED),
    tag="video",
)


@api_route("/v1/video/task/{task_id}/transcript", "GET", TRANSCRIPT_DOC)
async def get_transcript(request: Request) -> JSONResponse:
    _, task = await _owned_task(request)
    transcript = await _transcript(services_of(request), task)
    return JSONResponse(transcript.public())


REVISE_DOC = RouteDoc(
    summary="Revise a completed video task (extension)",
    description=(
        "Edits to the task's segments (`source` is translated again, `translation` is used as given, `speaker`, "
        "`start`, `end`) and output choices that differ from the task's. Answers like a submission: a new task, "
        "rendered from the stored transcript without recognizing or diarizing again, whose record names its "
        "`parent_task_id` and `revision`."
    ),
    body=ReviseRequest,
    response=ReviseResponse,
    errors=(
        ErrorKind.INVALID_PARAMETER,
        ErrorKind.UNSUPPORTED_LANGUAGE,
        ErrorKind.INVALID_URL,
        ErrorKind.UNSUPPORTED_MEDIA_TYPE,
        ErrorKind.NOT_FOUND,
        ErrorKind.CONFLICT,
        ErrorKind.FORBIDDEN,
        ErrorKind.QUOTA_EXCEEDED,
        ErrorKind.RATE_LIMITED,
        ErrorKind.IDEMPOTENCY_CONFLICT,
    ),
    tag="video",
    idempotent_create=True,
)


@api_route("/v1/video/task/{task_id}/revise", "POST", REVISE_DOC)
async def revise_task(request: Request) -> Response:
    account, parent = await _owned_task(request)
    services = services_of(request)
    body = await read_json(request)
    revise = parse_model(ReviseRequest, body)
    transcript = await _transcript(services, parent)
    try:
        edited, changes = apply_edits(transcript, revise.segments)
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

    async def create() -> Response:
        return await _create(services, account, spec, edited, changes)

    key = fingerprint("POST", request.url.path, body)
    return await services.idempotency.run(request, account.id, key, create)


async def _owned_task(request: Request) -> tuple[Account, Task]:
    """The caller's completed video task of the path."""
    account, task = await owned_task(request, kind="video")
    if task.status is not TaskState.COMPLETED:
        raise ApiError(ErrorKind.CONFLICT, NOT_COMPLETED.format(status=task.status.value))
    return account, task


async def _transcript(services: Services, task: Task) -> StoredTranscript:
    transcript = await read_transcript(services.files, task.task_id)
    if transcript is None:
        raise ApiError(ErrorKind.CONFLICT, GONE)
    return transcript


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


def revision_charges(spec: VideoJobSpec, edited: StoredTranscript, changes: dict[str, set[str]]) -> list[tuple[str, int]]:
    """A revision counts as a video task; a dub is charged the seconds of the lines spoken again (docs/billing.md).

    Nothing is recognized, so no ``video_minutes``. A dub newly switched on speaks every line.
    """
    charges = [("video_tasks", 1)]
    if spec.enable_dubbing:
        parent_dubbed = any(s.dubbing is not None for s in edited.segments)
        spoken = [s for s in edited.segments if not parent_dubbed or changes.get(s.id, set()) & {"source", "translation"}]
        seconds = sum(s.end - s.start for s in spoken)
        if seconds > 0:
            charges.append((dubbing_metric(spec.dubbing_voice), max(1, math.ceil(seconds))))
    return charges


async def _create(
    services: Services, account: Account, spec: VideoJobSpec, edited: StoredTranscript, changes: dict[str, set[str]]
) -> Response:
    async with charged(services.quotas, account, revision_charges(spec, edited, changes)):
        estimate = await services.speed.estimate(spec.speed_kind, _revised_seconds(spec, edited, changes))
        task = await services.tasks.create(
            account.id,
            spec.stored(),
            kind="video",
            request_id=request_id_var.get(),
            estimated_seconds=estimate,
            limits=caps.resolve(account),
        )
    revision = spec.revision or {}
    body = {
        "task_id": task.task_id,
        "status": task.status.value,
        "created_at": iso(task.created_at),
        "estimated_seconds": estimate,
        "parent_task_id": revision.get("parent_task_id"),
        "revision": revision.get("number"),
    }
    return JSONResponse(body)


def _revised_seconds(spec: VideoJobSpec, edited: StoredTranscript, changes: dict[str, set[str]]) -> float:
    """Media seconds the estimate scales with: the dubbed or burned range, or the edited segments' for subtitles."""
    if spec.enable_dubbing or spec.burns:
        return max(1.0, edited.span[1] - edited.span[0])
    return max(1.0, sum(s.end - s.start for s in edited.segments if s.id in changes) / 10)


ROUTES = [get_transcript, revise_task]
