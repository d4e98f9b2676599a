"""``POST /v1/game/localization`` (the checks, the charge and the call: :mod:`serve_app.game_localization`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core.errors import ErrorKind
from serve_app.auth import authenticate, services_of
from serve_app.bodies import read_json
from serve_app.game_localization import plan_localization, read_localization_request, run_localization
from serve_app.idempotency import fingerprint
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.game import LocalizationRequest, LocalizationResponse

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
    body = read_localization_request(raw)
    services = services_of(request)
    localization = await plan_localization(services, account, body)

    async def run() -> Response:
        response = await run_localization(services, account, localization)
        return JSONResponse(response.model_dump())

    return await services.idempotency.run(request, account.id, fingerprint("POST", request.url.path, raw), run)


ROUTES = [localize]
