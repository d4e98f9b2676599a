"""``POST /v1/grammar`` and ``GET /v1/grammar/rules``.

Errors use the grammar code table: 400 1001 invalid field or not JSON, 400 1002
unsupported language, 400 1003 unknown check type, 400 1006 unknown rule id,
413 3001 text over 50,000 characters, 422 3002 nothing to check, 401 2001,
403 2003, 429 4001, 456 4002 (quota), 503 5002.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pydantic
from starlette.requests import Request
from starlette.responses import JSONResponse

from core.accounts import Account
from core.errors import ApiError, ErrorKind
from deployments.engines.grammar.checker import Catalogue, GrammarRequest, GrammarResult
from deployments.engines.grammar.text import has_text
from deployments.engines.grammar.types import ISSUE_TYPES
from serve_app.auth import authenticate, services_of
from serve_app.bodies import parse_model, read_json
from serve_app.catalog import UnknownLanguage
from serve_app.responses import validation_error
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.grammar import MAX_TEXT_CHARS, GrammarCheckRequest, GrammarCheckResponse, RulesQuery, RulesResponse
from serve_app.services import Services

CHECK_DOC = RouteDoc(
    summary="Check spelling, grammar, punctuation, style and wordiness",
    description=(
        "Offsets and lengths count Unicode code points of `text`. Issues never overlap and are sorted by offset. "
        "Rule ids and the grammar languages are listed by GET /v1/grammar/rules."
    ),
    body=GrammarCheckRequest,
    response=GrammarCheckResponse,
    errors=(
        ErrorKind.INVALID_PARAMETER,
        ErrorKind.UNSUPPORTED_LANGUAGE,
        ErrorKind.UNSUPPORTED_CHECK_TYPE,
        ErrorKind.INVALID_RULE_ID,
        ErrorKind.PAYLOAD_TOO_LARGE,
        ErrorKind.NO_VALID_TEXT,
        ErrorKind.FORBIDDEN,
        ErrorKind.RATE_LIMITED,
        ErrorKind.QUOTA_EXCEEDED,
        ErrorKind.UNAVAILABLE,
    ),
    tag="grammar",
)

RULES_DOC = RouteDoc(
    summary="List grammar rules and grammar languages",
    description="Every id `disable_rules` accepts, filtered by language and type; and what is checked per language.",
    query=RulesQuery,
    response=RulesResponse,
    errors=(ErrorKind.INVALID_PARAMETER, ErrorKind.UNSUPPORTED_LANGUAGE, ErrorKind.FORBIDDEN, ErrorKind.RATE_LIMITED),
    tag="grammar",
)


@api_route("/v1/grammar", "POST", CHECK_DOC)
async def check_grammar(request: Request) -> JSONResponse:
    account = await authenticate(request)
    raw = await read_json(request)
    if isinstance(raw, dict):
        _check_size_and_types(raw)
    body = parse_model(GrammarCheckRequest, raw)
    if not has_text(body.text):
        raise ApiError(ErrorKind.NO_VALID_TEXT, "The text is empty or holds only special characters: nothing to check.")
    services = services_of(request)
    catalogue = await _catalogue(services)
    lang = _language(services, catalogue, body.lang)
    unknown = [rule for rule in body.disable_rules if not catalogue.valid_rule(rule)]
    if unknown:
        raise ApiError(ErrorKind.INVALID_RULE_ID, f"Unknown rule id(s) in disable_rules: {', '.join(unknown[:10])}.")
    checked = GrammarRequest(
        text=body.text,
        lang=lang,
        auto_correct=body.auto_correct,
        check_types=frozenset(body.check_types or ISSUE_TYPES),
        min_severity=body.severity,
        disabled_rules=frozenset(body.disable_rules),
        domain=body.domain,
    )
    result = await _charged(services, account, checked)
    return JSONResponse(_response(body.text, result).model_dump())


@api_route("/v1/grammar/rules", "GET", RULES_DOC)
async def list_rules(request: Request) -> JSONResponse:
    await authenticate(request)
    try:
        query = RulesQuery.model_validate(dict(request.query_params))
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None
    services = services_of(request)
    catalogue = await _catalogue(services)
    lang = _language(services, catalogue, query.lang) if query.lang else None
    rules = [
        r
        for r in catalogue.rules
        if (lang is None or not r.languages or lang in r.languages or lang.split("-")[0] in r.languages)
        and (query.type is None or r.type == query.type)
    ]
    body = RulesResponse.model_validate(
        {
            "rules": [{**r.__dict__, "languages": list(r.languages)} for r in rules],
            "total": len(rules),
            "languages": [{**s.__dict__, "engines": list(s.engines)} for s in catalogue.languages],
        }
    )
    return JSONResponse(body.model_dump())


def _check_size_and_types(raw: dict[str, Any]) -> None:
    """Errors with codes of their own, before the model's generic 1001."""
    text = raw.get("text")
    if isinstance(text, str) and len(text) > MAX_TEXT_CHARS:
        raise ApiError(ErrorKind.PAYLOAD_TOO_LARGE, f"text has {len(text)} characters; the limit is {MAX_TEXT_CHARS}.")
    types = raw.get("check_types")
    if isinstance(types, list):
        bad = [t for t in types if isinstance(t, str) and t not in ISSUE_TYPES]
        if bad:
            raise ApiError(
                ErrorKind.UNSUPPORTED_CHECK_TYPE, f"Unsupported check_types value(s) {bad}; use {', '.join(ISSUE_TYPES)}."
            )


async def _catalogue(services: Services) -> Catalogue:
    handle = services.handles.get("grammar")
    if handle is None:
        raise ApiError(ErrorKind.UNAVAILABLE, "Grammar checking is not deployed on this service.")

    async def load() -> Catalogue:
        catalogue: Catalogue = await asyncio.wait_for(handle.catalogue.remote(), services.args.handle_timeout_s)
        return catalogue

    catalogue: Catalogue = await services.grammar_catalogue.get(load)
    return catalogue


def _language(services: Services, catalogue: Catalogue, given: str | None) -> str | None:
    """The canonical code the engines check (a variant falls back to its language); None: detect."""
    if given is None or given.strip().lower() == "auto":
        return None
    try:
        code = services.catalog.canonical(given)
    except UnknownLanguage:
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, f"lang {given!r} is not a supported language code.") from None
    served = {s.code for s in catalogue.languages}
    for candidate in (code, code.split("-")[0]):
        if candidate in served:
            return candidate
    raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, f"Grammar checking is not available for {code}; see GET /v1/grammar/rules.")


async def _charged(services: Services, account: Account, checked: GrammarRequest) -> GrammarResult:
    amount = len(checked.text)
    await services.quotas.consume(account, "grammar_characters", amount)
    try:
        result: GrammarResult = await asyncio.wait_for(
            services.handles["grammar"].check.remote(checked), services.args.handle_timeout_s
        )
    except BaseException:
        await services.quotas.refund(account, "grammar_characters", amount)
        raise
    return result


def _response(text: str, result: GrammarResult) -> GrammarCheckResponse:
    issues = [
        {
            "type": i.type,
            "offset": i.offset,
            "length": i.length,
            "wrong": text[i.offset : i.end],
            "correct": i.replacements[0] if i.replacements else None,
            "severity": i.severity,
            "message": i.message,
            "rule_id": i.rule_id,
        }
        for i in result.issues
    ]
    return GrammarCheckResponse.model_validate(
        {
            "original": text,
            "corrected": result.corrected if issues else None,
            "issues": issues,
            "issues_count": len(issues),
            "lang": result.lang,
            "quality_score": result.quality_score,
        }
    )


ROUTES = [check_grammar, list_rules]
