"""Review and revise a video task (extension, docs/video-revisions.md): its transcript, and revisions of it.

The work is in the service, ``serve_app/video_revisions.py``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.errors import ErrorKind
from core.specs.revision import ReviseRequest
from serve_app.auth import services_of
from serve_app.bodies import parse_model, read_json
from serve_app.idempotency import fingerprint
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.revisions import ReviseResponse, TranscriptBody
from serve_app.video_revisions import completed_task, create_revision, prepare_revision, stored_transcript

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
    _, task = await completed_task(request)
    transcript = await stored_transcript(services_of(request), task)
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
    account, parent = await completed_task(request)
    services = services_of(request)
    body = await read_json(request)
    prepared = await prepare_revision(services, account, parent, parse_model(ReviseRequest, body))

    async def create() -> Response:
        created = await create_revision(services, account, prepared)
        return JSONResponse(created.model_dump(mode="json", exclude_none=True))

    key = fingerprint("POST", request.url.path, body)
    return await services.idempotency.run(request, account.id, key, create)


ROUTES = [get_transcript, revise_task]
