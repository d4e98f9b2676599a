"""Game text localization at the edge (``POST /v1/game/localization``).

A request is refused before anything is charged: a text over 50,000
characters (413 3001) before the body is validated, then unknown language
codes and pairs the service cannot translate (400 1002), then a glossary that
is unknown (400 1001), another account's (403 2003), for another source
language or for none of the targets (400 1001), two glossaries that translate
one term differently (400 1001), and a memory that is unknown, another
account's or for none of the targets (400 1001; serve_app/steering.py).
``context`` is not charged. ``game_characters`` (text length × targets) is charged
before the ``Localizer`` deployment runs and refunded when it fails. Targets
in the source language are answered with the text and never sent.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from core.accounts import Account
from core.billing import charged
from core.errors import ApiError, ErrorKind
from core.specs.steering import named_glossaries
from engines.localization import LocalizationJob, LocalizationOutcome, segments_of
from engines.translation.glossary import Glossary
from engines.translation.languages import primary
from engines.translation.memory import MemoryPlan, plan_memory
from serve_app.auth import require_owner
from serve_app.bodies import parse_model
from serve_app.deployment_calls import call
from serve_app.schemas.game import MAX_TEXT_CHARS, LocalizationRequest, LocalizationResponse
from serve_app.services import Services
from serve_app.steering import covers, memory_index, memory_record, snapshots


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
    targets = tuple(t for t in requested if primary(t) != source)
    glossaries = await _glossaries(services, account, body, source, targets)
    memory = await _memory(services, account, body, source, targets)
    return Localization(body, body.to_engine_job(source, targets, glossaries, memory), requested)


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


async def _glossaries(
    services: Services, account: Account, body: LocalizationRequest, source: str, targets: tuple[str, ...]
) -> tuple[Glossary, ...]:
    """One glossary per target at most: the named ones for it, merged."""
    ids = named_glossaries(body.glossary_id, body.glossary_ids)
    if not ids:
        return ()
    records = []
    for glossary_id in ids:
        record = await services.glossaries.get(glossary_id)
        if record is None:  # the game table has no "not found" row: an unknown glossary is a bad parameter
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"glossary_id: no glossary {glossary_id!r}.")
        require_owner(account, record["account_id"], "glossary")
        if record["source_lang"] != source:
            raise ApiError(
                ErrorKind.INVALID_PARAMETER, f"Glossary {glossary_id!r} is for source {record['source_lang']}, not {source}."
            )
        records.append(record)
    merged = snapshots(records, source, targets or (source,), ErrorKind.INVALID_PARAMETER, every_one_used=bool(targets))
    return tuple(snapshot.engine_glossary() for snapshot in merged.values())


async def _memory(
    services: Services, account: Account, body: LocalizationRequest, source: str, targets: tuple[str, ...]
) -> tuple[str, MemoryPlan] | None:
    """The memory's plan for the text, and the target it is for (None without a memory or a target)."""
    if body.memory_id is None:
        return None
    record = await memory_record(services, account, body.memory_id)
    if not targets:  # every target is the source: nothing is translated
        return None
    target = next((t for t in targets if covers(record, source, t)), None)
    if target is None:
        raise ApiError(
            ErrorKind.INVALID_PARAMETER,
            f"memory_id: memory {body.memory_id!r} is for {record['source_lang']} → {record['target_lang']}, "
            "not for any of the targets.",
        )
    index = await memory_index(services, record)
    return target, plan_memory(segments_of(body.text), index)


def _unsupported(message: str) -> ApiError:
    return ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, message)
