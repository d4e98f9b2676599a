"""Translate a subtitle file (extension, docs/subtitle-translation.md).

The checks are in ``serve_app/subtitle_submit.py``; the task is a video task (``GET /v1/video/task/{id}``).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.accounts import Account
from core.billing import charged
from core.errors import ErrorKind
from core.specs.video import SubtitleSource
from serve_app.additional_targets import create_submitted, submitted_body
from serve_app.auth import authenticate, services_of
from serve_app.idempotency import fingerprint
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.subtitles import SubtitleTranslateParams
from serve_app.schemas.video import SubmitResponse
from serve_app.services import Services
from serve_app.subtitle_submit import SubtitleSubmission, validate_subtitles
from serve_app.uploads import FormBody, read_form
from serve_app.video_submit import discard, upload_dir

SUBMIT_DOC = RouteDoc(
    summary="Translate a subtitle file (extension)",
    description=(
        "multipart/form-data with `file` (SubRip, WebVTT, ASS/SSA or TTML, at most 2 MB), `target_lang`, "
        "`source_lang` (omitted or `auto`: told from the text) and the subtitle choices of a video submission. "
        "A video task without a video: the cues keep their times, `[Name]` labels, ASS actors and WebVTT voices "
        "are kept as speakers, and nothing is recognized. Poll it, revise it and add languages to it as any "
        "video task. A file that cannot be read is refused with 400 and the first bad line."
    ),
    body=SubtitleTranslateParams,
    body_content_type="multipart/form-data",
    form_files=("file",),
    response=SubmitResponse,
    errors=(
        ErrorKind.INVALID_PARAMETER,
        ErrorKind.UNSUPPORTED_LANGUAGE,
        ErrorKind.INVALID_URL,
        ErrorKind.GLOSSARY_NOT_FOUND,
        ErrorKind.UNSUPPORTED_MEDIA_TYPE,
        ErrorKind.PAYLOAD_TOO_LARGE,
        ErrorKind.FORBIDDEN,
        ErrorKind.QUOTA_EXCEEDED,
        ErrorKind.RATE_LIMITED,
        ErrorKind.IDEMPOTENCY_CONFLICT,
        ErrorKind.UNAVAILABLE,
    ),
    tag="video",
    idempotent_create=True,
)


@api_route("/v1/subtitles/translate", "POST", SUBMIT_DOC)
async def submit_subtitles(request: Request) -> Response:
    account = await authenticate(request)
    services = services_of(request)
    staging = upload_dir(services)
    try:
        form = await read_form(request, staging)
        submission = await validate_subtitles(services, account, form)

        async def create() -> Response:
            return await _create_task(services, account, form, submission)

        key = fingerprint("POST", request.url.path, submission.fingerprint)
        return await services.idempotency.run(request, account.id, key, create)
    finally:
        discard(staging)


async def _create_task(services: Services, account: Account, form: FormBody, submission: SubtitleSubmission) -> Response:
    assert form.file is not None  # validate_subtitles refused a form without one
    async with charged(services.quotas, account, submission.charges()):
        upload_id = form.file.path.parent.name
        stored = await services.files.put(upload_id, form.file.path.name, form.file.path, "text/plain", consume=True)
        spec = submission.spec(SubtitleSource(key=stored.key, filename=form.file.filename, size=form.file.size))
        estimate = await services.speed.estimate(spec.speed_kind, submission.duration)
        task, added = await create_submitted(
            services, account, spec, submission.additional, submission.duration, estimate, submission.glossaries
        )
    return JSONResponse(submitted_body(task, estimate, added))


ROUTES = [submit_subtitles]
