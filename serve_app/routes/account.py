"""``GET /v1/account``: who the token belongs to, its limits, this month's usage and what it stores."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

from core import caps, keys
from core.accounts import QUOTA_METRICS
from core.errors import ErrorKind
from core.holdings import holdings
from core.quotas import current_period
from serve_app.auth import authenticate_and_read, services_of
from serve_app.routing import RouteDoc, api_route
from serve_app.schemas.account import AccountInfo

DOC = RouteDoc(
    summary="The calling account, its limits and usage",
    response=AccountInfo,
    errors=(ErrorKind.UNAUTHORIZED, ErrorKind.RATE_LIMITED),
    tag="account",
)


@api_route("/v1/account", "GET", DOC)
async def get_account(request: Request) -> JSONResponse:
    period = current_period()
    account, values = await authenticate_and_read(
        request, [keys.quota(keys.ACCOUNT_PLACEHOLDER, m, period) for m in QUOTA_METRICS]
    )
    usage = {metric: int(value or 0) for metric, value in zip(QUOTA_METRICS, values, strict=True)}
    info = AccountInfo(
        account_id=account.id,
        name=account.name,
        rate_limit_per_minute=account.rate_per_minute,
        rate_limit_burst=account.burst,
        quotas=account.quotas,
        usage=usage,
        period=period,
        caps={name: value for name, value in caps.resolve(account).items() if value is not None},
        stored=await holdings(services_of(request).redis, account.id),
    )
    return JSONResponse(info.model_dump())


ROUTES = [get_account]
