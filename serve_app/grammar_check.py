"""Grammar checks at the edge: ``POST /v1/grammar`` and ``GET /v1/grammar/rules``.

A check is refused, cheapest first, for a text over 50,000 characters (413
3001) or an unknown check type (400 1003) before the body is validated (400
1001), then for a text with nothing to check (422 3002). The ``Grammar``
deployment's catalogue (cached) then decides the language (400 1002) and the
rule ids (400 1006). The ``grammar_characters`` quota is charged before the
check runs and refunded when it fails.
"""

from __future__ import annotations

from typing import Any

from core.accounts import Account
from core.billing import charged
from core.errors import ApiError, ErrorKind
from engines.grammar.checker import Catalogue, GrammarRequest, GrammarResult
from engines.grammar.text import has_text
from engines.grammar.types import ISSUE_TYPES
from serve_app.bodies import parse_model
from serve_app.deployment_calls import call
from serve_app.schemas.grammar import MAX_TEXT_CHARS, GrammarCheckRequest, GrammarCheckResponse, RulesQuery, RulesResponse
from serve_app.services import Services


def read_check_request(raw: Any) -> GrammarCheckRequest:
    """The validated body of a check; raw is the parsed JSON."""
    if isinstance(raw, dict):
        _check_size_and_types(raw)
    body = parse_model(GrammarCheckRequest, raw)
    if not has_text(body.text):
        raise ApiError(ErrorKind.NO_VALID_TEXT, "The text is empty or holds only special characters: nothing to check.")
    return body


async def check(services: Services, account: Account, body: GrammarCheckRequest) -> GrammarCheckResponse:
    """Check ``body`` in the ``Grammar`` deployment, charging ``grammar_characters``."""
    catalogue = await _catalogue(services)
    lang = _language(services, catalogue, body.lang)
    unknown = [rule for rule in body.disable_rules if not catalogue.valid_rule(rule)]
    if unknown:
        raise ApiError(ErrorKind.INVALID_RULE_ID, f"Unknown rule id(s) in disable_rules: {', '.join(unknown[:10])}.")
    result = await _charged(services, account, body.to_engine_request(lang))
    return GrammarCheckResponse.from_result(body.text, result)


async def rules(services: Services, query: RulesQuery) -> RulesResponse:
    """The rules ``query`` selects, and the grammar languages."""
    catalogue = await _catalogue(services)
    lang = _language(services, catalogue, query.lang) if query.lang else None
    return RulesResponse.from_catalogue(catalogue, lang, query.type)


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
    handle = services.handle("grammar")

    async def load() -> Catalogue:
        catalogue: Catalogue = await call(handle.catalogue.remote(), services.args.handle_timeout_s, "The rule catalogue")
        return catalogue

    catalogue: Catalogue = await services.grammar_catalogue.get(load)
    return catalogue


def _language(services: Services, catalogue: Catalogue, given: str | None) -> str | None:
    """The canonical code the engines check (a variant falls back to its language); None: detect."""
    if given is None or given.strip().lower() == "auto":
        return None
    code = services.catalog.resolve(given, "lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE)
    served = {s.code for s in catalogue.languages}
    for candidate in (code, code.split("-")[0]):
        if candidate in served:
            return candidate
    raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, f"Grammar checking is not available for {code}; see GET /v1/grammar/rules.")


async def _charged(services: Services, account: Account, checked: GrammarRequest) -> GrammarResult:
    async with charged(services.quotas, account, [("grammar_characters", len(checked.text))]):
        timeout = services.args.grammar_timeout_s(len(checked.text))
        result: GrammarResult = await call(services.handles["grammar"].check.remote(checked), timeout, "The check")
    return result
