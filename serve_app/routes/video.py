"""Video translation task endpoints."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.accounts import Account
from core.billing import charged
from core.errors import ErrorKind
from core.specs.video import SubtitleSource, UploadSource, UrlSource, billable_minutes, feature_charges
from serve_app.additional_targets import create_submitted, submitted_body, with_targets
from serve_app.auth import authenticate, services_of
from serve_app.idempotency import fingerprint
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.video import SubmitResponse, TaskRecord, VideoTranslateParams
from serve_app.services import Services
from serve_app.uploads import Attachment, FormBody, read_form
from serve_app.video_submit import ATTACHMENTS, Submission, discard, upload_dir, validate_submission
from serve_app.video_tasks import owned_task

GET_DOC = RouteDoc(
    summary="Read a video translation task",
    description="Another account's task answers 404 TASK_NOT_FOUND, exactly like a missing one.",
    response=TaskRecord,
    errors=(ErrorKind.NOT_FOUND, ErrorKind.RATE_LIMITED),
    tag="video",
)


@api_route("/v1/video/task/{task_id}", "GET", GET_DOC)
async def get_task(request: Request) -> JSONResponse:
    _, task = await owned_task(request)
    # A key whose field does not apply to the task is absent from the record, never null.
    return JSONResponse(TaskRecord.model_validate(task.public()).model_dump(mode="json", exclude_none=True))


SUBMIT_DOC = RouteDoc(
    summary="Submit a video translation task",
    description=(
        "multipart/form-data with exactly one of `file` (max 500 MB, 3 h) and `video_url`, plus the parameters of "
        "contract 4.1. Uploads are validated at once; a `video_url` is fetched by a worker. Returns the queued task. "
        "Extensions: `subtitle_file` (the video's own source-language subtitles, or a transcript JSON of this "
        "service: used instead of recognition) and `additional_target_langs` (more languages, a task each)."
    ),
    body=VideoTranslateParams,
    body_content_type="multipart/form-data",
    form_files=("file", "subtitle_file"),
    exactly_one_of=("file", "video_url"),
    response=SubmitResponse,
    errors=(
        ErrorKind.INVALID_PARAMETER,
        ErrorKind.UNSUPPORTED_VIDEO,
        ErrorKind.PAYLOAD_TOO_LARGE,
        ErrorKind.NO_AUDIO_TRACK,
        ErrorKind.UNSUPPORTED_LANGUAGE,
        ErrorKind.INVALID_URL,
        ErrorKind.GLOSSARY_NOT_FOUND,
        ErrorKind.UNSUPPORTED_MEDIA_TYPE,
        ErrorKind.FORBIDDEN,
        ErrorKind.QUOTA_EXCEEDED,
        ErrorKind.RATE_LIMITED,
        ErrorKind.IDEMPOTENCY_CONFLICT,
        ErrorKind.UNAVAILABLE,
    ),
    tag="video",
    idempotent_create=True,
)


@api_route("/v1/video/translate", "POST", SUBMIT_DOC)
async def submit_task(request: Request) -> Response:
    account = await authenticate(request)
    services = services_of(request)
    staging = upload_dir(services)
    try:
        form = await read_form(request, staging, attachments=ATTACHMENTS)
        submission = await with_targets(services, account, await validate_submission(services, account, form))

        async def create() -> Response:
            return await _create_task(services, account, form, submission)

        key = fingerprint("POST", request.url.path, submission.fingerprint)
        return await services.idempotency.run(request, account.id, key, create)
    finally:
        discard(staging)


async def _create_task(services: Services, account: Account, form: FormBody, submission: Submission) -> Response:
    charges = [("video_tasks", 1), ("video_minutes", billable_minutes(submission.media_seconds))]
    charges += feature_charges(submission.options, submission.media_seconds)
    async with charged(services.quotas, account, charges):
        spec = submission.spec(await _store_source(services, form, submission))
        if submission.subtitles is not None:
            spec = spec.model_copy(update={"subtitles": await _store_subtitles(services, submission.subtitles[0])})
        estimate = await services.speed.estimate(spec.speed_kind, submission.media_seconds)
        task, added = await create_submitted(
            services, account, spec, submission.additional, submission.media_seconds, estimate, submission.glossaries
        )
    return JSONResponse(submitted_body(task, estimate, added))


async def _store_subtitles(services: Services, part: Attachment) -> SubtitleSource:
    """The video's own subtitles in the file store, beside the upload (read again by the worker)."""
    folder = upload_dir(services)
    folder.mkdir(parents=True)
    try:
        path = folder / "subtitles"
        await asyncio.to_thread(path.write_bytes, part.data)
        stored = await services.files.put(folder.name, path.name, path, "text/plain", consume=True)
    finally:
        discard(folder)
    return SubtitleSource(key=stored.key, filename=part.filename, size=len(part.data))


async def _store_source(services: Services, form: FormBody, submission: Submission) -> UploadSource | UrlSource:
    if form.file is None:
        return UrlSource(url=submission.options.video_url or "")
    upload_id = form.file.path.parent.name
    stored = await services.files.put(upload_id, form.file.path.name, form.file.path, form.file.content_type, consume=True)
    return UploadSource(key=stored.key, filename=form.file.filename, size=form.file.size)


ROUTES = [submit_task, get_task]
