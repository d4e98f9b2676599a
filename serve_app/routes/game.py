"""``POST /v1/game/localization``."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.accounts import Account
from core.errors import ApiError, ErrorKind
from core.glossaries import to_engine_glossary
from deployments.capabilities import primary
from deployments.engines.translation.glossary import Glossary
from deployments.localization import LocalizationJob, LocalizationOutcome
from serve_app.auth import authenticate, require_owner, services_of
from serve_app.bodies import parse_model, read_json
from serve_app.catalog import UnknownLanguage
from serve_app.idempotency import fingerprint
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.game import MAX_TEXT_CHARS, LocalizationRequest, LocalizationResponse
from serve_app.services import Services

DOC = RouteDoc(
    summary="Localize game text into several languages",
    description=(
        "All targets are translated in parallel. Placeholders ({0}, %s, <color>…</color>, [b]…[/b], \\n) are kept. "
        "With max_length no translation is longer than the limit; shortened targets are listed in `shortened`. "
        "genre and tone are echoed as null when omitted."
    ),
    body=LocalizationRequest,
    response=LocalizationResponse,
    errors=(
        ErrorKind.INVALID_PARAMETER,
        ErrorKind.UNSUPPORTED_LANGUAGE,
        ErrorKind.FORBIDDEN,
        ErrorKind.PAYLOAD_TOO_LARGE,
        ErrorKind.RATE_LIMITED,
        ErrorKind.QUOTA_EXCEEDED,
        ErrorKind.IDEMPOTENCY_CONFLICT,
        ErrorKind.UNAVAILABLE,
    ),
    tag="game",
    idempotent_create=True,
)


@api_route("/v1/game/localization", "POST", DOC)
async def localize(request: Request) -> Response:
    account = await authenticate(request)
    raw = await read_json(request)
    if isinstance(raw, dict) and isinstance(raw.get("text"), str) and len(raw["text"]) > MAX_TEXT_CHARS:
        raise ApiError(ErrorKind.PAYLOAD_TOO_LARGE, f"text has {len(raw['text'])} characters; the limit is {MAX_TEXT_CHARS}.")
    body = parse_model(LocalizationRequest, raw)
    services = services_of(request)
    requested = _targets(services, body)
    job = await _job(services, body, requested)
    if body.glossary_id:
        job = dataclasses.replace(job, glossary=await _glossary(services, account, body.glossary_id, job.source_lang))

    async def run() -> Response:
        amount = len(body.text) * len(job.target_langs)
        await services.quotas.consume(account, "game_characters", amount)
        try:
            outcome = await _call(services, job)
        except BaseException:
            await services.quotas.refund(account, "game_characters", amount)
            raise
        return JSONResponse(_response(body, outcome, requested))

    return await services.idempotency.run(request, account.id, fingerprint("POST", request.url.path, raw), run)


def _targets(services: Services, body: LocalizationRequest) -> list[str]:
    """Canonical, de-duplicated target codes in request order."""
    targets: list[str] = []
    for given in body.target_langs:
        try:
            targets.append(services.catalog.canonical(given))
        except UnknownLanguage:
            raise _unsupported(f"target_langs: {given!r} is not a supported language code.") from None
    return list(dict.fromkeys(targets))


async def _job(services: Services, body: LocalizationRequest, targets: list[str]) -> LocalizationJob:
    try:
        source = services.catalog.primary(body.source_lang)
    except UnknownLanguage:
        raise _unsupported(f"source_lang {body.source_lang!r} is not a supported language code.") from None
    caps = await services.capabilities.get()
    missing = [t for t in targets if not caps.translates(source, t)]
    if missing:
        raise _unsupported(f"Translation {source} → {', '.join(missing)} is not available on this service.")
    return LocalizationJob(
        text=body.text,
        source_lang=source,
        target_langs=tuple(t for t in targets if primary(t) != source),
        content_type=body.content_type,
        genre=body.genre,
        tone=body.tone,
        max_length=body.max_length,
    )


async def _call(services: Services, job: LocalizationJob) -> LocalizationOutcome:
    if not job.target_langs:
        return LocalizationOutcome({}, (), {}, ())
    handle = services.handles.get("localizer")
    if handle is None:
        raise ApiError(ErrorKind.UNAVAILABLE, "Localization is not deployed on this service.")
    outcome: LocalizationOutcome = await asyncio.wait_for(handle.localize.remote(job), services.args.handle_timeout_s)
    return outcome


async def _glossary(services: Services, account: Account, glossary_id: str, source: str) -> Glossary:
    record = await services.glossaries.get(glossary_id)
    if record is None:  # the game table has no "not found" row: an unknown glossary is a bad parameter
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"glossary_id: no glossary {glossary_id!r}.")
    require_owner(account, record["account_id"], "glossary")
    if record["source_lang"] != source:
        raise ApiError(
            ErrorKind.INVALID_PARAMETER, f"Glossary {glossary_id!r} is for source {record['source_lang']}, not {source}."
        )
    return to_engine_glossary(record)


def _response(body: LocalizationRequest, outcome: LocalizationOutcome, requested: list[str]) -> dict[str, Any]:
    """Keys are the canonical codes; a target in the source language gets the text unchanged."""
    return LocalizationResponse(
        original=body.text,
        translations={code: outcome.translations.get(code, body.text) for code in requested},
        content_type=body.content_type,
        genre=body.genre,
        tone=body.tone,
        shortened=list(outcome.shortened),
        engines={code: outcome.engines[code] for code in requested if code in outcome.engines},
        fallback=[code for code in requested if code in outcome.fallback],
    ).model_dump()


def _unsupported(message: str) -> ApiError:
    return ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, message)


ROUTES = [localize]
