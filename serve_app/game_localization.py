"""Game text localization at the edge (``POST /v1/game/localization``).

A request is refused before anything is charged: a text over 50,000
characters (413 3001) before the body is validated, then unknown language
codes and pairs the service cannot translate (400 1002), then a glossary that
is unknown (400 1001), another account's (403 2003) or for another source
language (400 1001). ``game_characters`` (text length × targets) is charged
before the ``Localizer`` deployment runs and refunded when it fails. Targets
in the source language are answered with the text and never sent.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from core.accounts import Account
from core.billing import charged
from core.errors import ApiError, ErrorKind
from core.glossaries import to_engine_glossary
from engines.localization import LocalizationJob, LocalizationOutcome
from engines.translation.glossary import Glossary
from engines.translation.languages import primary
from serve_app.auth import require_owner
from serve_app.bodies import parse_model
from serve_app.deployment_calls import call
from serve_app.schemas.game import MAX_TEXT_CHARS, LocalizationRequest, LocalizationResponse
from serve_app.services import Services


@dataclasses.dataclass(frozen=True)
class Localization:
    """A validated request, ready to run.

    Attributes:
        body: the request as given.
        job: the localizer's job (only the targets that need translating).
        requested: the canonical target codes, de-duplicated, in request order (the response's keys).
    """

    body: LocalizationRequest
    job: LocalizationJob
    requested: tuple[str, ...]


def read_localization_request(raw: Any) -> LocalizationRequest:
    """The validated body; raw is the parsed JSON."""
    if isinstance(raw, dict) and isinstance(raw.get("text"), str) and len(raw["text"]) > MAX_TEXT_CHARS:
        raise ApiError(ErrorKind.PAYLOAD_TOO_LARGE, f"text has {len(raw['text'])} characters; the limit is {MAX_TEXT_CHARS}.")
    return parse_model(LocalizationRequest, raw)


async def plan_localization(services: Services, account: Account, body: LocalizationRequest) -> Localization:
    """Resolve and check the languages and the glossary; nothing is charged yet."""
    requested = _targets(services, body)
    source = await _source(services, body, requested)
    glossary = await _glossary(services, account, body.glossary_id, source) if body.glossary_id else None
    targets = tuple(t for t in requested if primary(t) != source)
    return Localization(body, body.to_engine_job(source, targets, glossary), requested)


async def run_localization(services: Services, account: Account, localization: Localization) -> LocalizationResponse:
    """Charge ``game_characters``, localize, and refund the charge if that fails."""
    body, job = localization.body, localization.job
    async with charged(services.quotas, account, [("game_characters", len(body.text) * len(job.target_langs))]):
        outcome = await _call(services, job)
    return LocalizationResponse.from_outcome(body, outcome, localization.requested)


def _targets(services: Services, body: LocalizationRequest) -> tuple[str, ...]:
    """Canonical, de-duplicated target codes in request order."""
    targets: list[str] = []
    for given in body.target_langs:
        targets.append(services.catalog.resolve(given, "target_langs", kind=ErrorKind.UNSUPPORTED_LANGUAGE))
    return tuple(dict.fromkeys(targets))


async def _source(services: Services, body: LocalizationRequest, targets: tuple[str, ...]) -> str:
    """The source's primary code, once every target can be translated from it."""
    source = services.catalog.resolve(body.source_lang, "source_lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE, as_primary=True)
    caps = await services.capabilities.get()
    missing = [t for t in targets if not caps.translates(source, t)]
    if len(missing) == 1:
        raise _unsupported(caps.refusal(source, missing[0]))
    if missing:
        raise _unsupported(f"Translation {source} → {', '.join(missing)} is not available on this service.")
    return source


async def _call(services: Services, job: LocalizationJob) -> LocalizationOutcome:
    if not job.target_langs:
        return LocalizationOutcome({}, (), {}, ())
    handle = services.handle("localizer")
    outcome: LocalizationOutcome = await call(handle.localize.remote(job), services.args.handle_timeout_s, "Localization")
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


def _unsupported(message: str) -> ApiError:
    return ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, message)
