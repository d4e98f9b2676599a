"""Add a language to a completed video task (extension, docs/video-languages.md).

The work is in the service, ``serve_app/video_languages.py``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.errors import ErrorKind
from core.specs.added_language import AddLanguageRequest
from serve_app.auth import services_of
from serve_app.bodies import parse_model, read_json
from serve_app.idempotency import fingerprint
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.revisions import AddLanguageResponse
from serve_app.video_languages import create_language, prepare_language
from serve_app.video_revisions import completed_task

ADD_DOC = RouteDoc(
    summary="Add a language to a completed video task (extension)",
    description=(
        "A new task that translates the parent's stored transcript (its source segments, times and speakers, as "
        "they are) into `target_lang` and renders it, without extracting, recognizing or diarizing again: its "
        "stages are validating, translating, synthesizing and packaging. It takes every output choice of a "
        "submission; an omitted one is the parent's, except `glossary_id` and `callback_url` (none unless given) "
        "and `max_subtitle_length` / `subtitle_max_duration` (the new language's preset unless given). Answers "
        "like a submission, with `parent_task_id`; the new task is a normal task (poll, callback, transcript, "
        "revise, add a language). Charged: one `video_tasks`, and `professional_minutes` and dubbed seconds of "
        "the parent's range when they apply; never `video_minutes`."
    ),
    body=AddLanguageRequest,
    response=AddLanguageResponse,
    errors=(
        ErrorKind.INVALID_PARAMETER,
        ErrorKind.UNSUPPORTED_LANGUAGE,
        ErrorKind.GLOSSARY_NOT_FOUND,
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


@api_route("/v1/video/task/{task_id}/translations", "POST", ADD_DOC)
async def add_language(request: Request) -> Response:
    account, parent = await completed_task(request)
    services = services_of(request)
    body = await read_json(request)
    prepared = await prepare_language(services, account, parent, parse_model(AddLanguageRequest, body))

    async def create() -> Response:
        created = await create_language(services, account, prepared)
        return JSONResponse(created.model_dump(mode="json"))

    key = fingerprint("POST", request.url.path, body)
    return await services.idempotency.run(request, account.id, key, create)


ROUTES = [add_language]
