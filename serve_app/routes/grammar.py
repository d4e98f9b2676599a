"""``POST /v1/grammar`` and ``GET /v1/grammar/rules``.

Errors use the grammar code table: 400 1001 invalid field or not JSON, 400 1002
unsupported language, 400 1003 unknown check type, 400 1006 unknown rule id,
413 3001 text over 50,000 characters, 422 3002 nothing to check, 401 2001,
403 2003, 429 4001, 456 4002 (quota), 503 5002. The checks and the quota
charge are in :mod:`serve_app.grammar_check`.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

from core.errors import ErrorKind
from serve_app.auth import authenticate, services_of
from serve_app.bodies import parse_model, read_json
from serve_app.grammar_check import check, read_check_request, rules
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.grammar import GrammarCheckRequest, GrammarCheckResponse, RulesQuery, RulesResponse

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
    body = read_check_request(await read_json(request))
    response = await check(services_of(request), account, body)
    return JSONResponse(response.model_dump())


@api_route("/v1/grammar/rules", "GET", RULES_DOC)
async def list_rules(request: Request) -> JSONResponse:
    await authenticate(request)
    query = parse_model(RulesQuery, dict(request.query_params))
    response = await rules(services_of(request), query)
    return JSONResponse(response.model_dump())


ROUTES = [check_grammar, list_rules]
