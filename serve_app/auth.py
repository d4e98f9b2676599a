"""Bearer-token authentication followed by the account's rate limit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.requests import Request

from core.accounts import TOKEN_PREFIX, Account, hash_token
from core.errors import ApiError, ErrorKind, group_for_path
from serve_app import ratelimit_headers
from serve_app.limits import RateLimiter
from serve_app.services import Services

_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="v1"'}


def services_of(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


async def authenticate(request: Request) -> Account:
    """The calling account; raises UNAUTHORIZED, FORBIDDEN (disabled, out of scope) or RATE_LIMITED.

    Once the token is known, the account's rate-limit state goes to the response headers
    (:mod:`serve_app.ratelimit_headers`), refusals included.
    """
    account, _ = await authenticate_and_read(request)
    return account


async def authenticate_and_read(request: Request, prefetch: Sequence[str] = ()) -> tuple[Account, tuple[Any, ...]]:
    """:func:`authenticate`, plus reads of ``prefetch`` keys in the same Redis round trip.

    Keys may contain ``keys.ACCOUNT_PLACEHOLDER``. Nothing read is used unless
    the caller was admitted.
    """
    header = request.headers.get("authorization")
    if not header:
        raise ApiError(
            ErrorKind.UNAUTHORIZED, "Missing Authorization header; send 'Authorization: Bearer <token>'.", headers=_CHALLENGE
        )
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(ErrorKind.UNAUTHORIZED, "Authorization must use the Bearer scheme.", headers=_CHALLENGE)
    token = token.strip()
    limiter = services_of(request).limiter
    admission = await limiter.admit(hash_token(token), prefetch) if token.startswith(TOKEN_PREFIX) else None
    if admission is None:
        raise ApiError(ErrorKind.UNAUTHORIZED, "Invalid, revoked or expired token.", headers=_CHALLENGE)
    account = admission.account
    if admission.disabled:
        raise ApiError(ErrorKind.FORBIDDEN, "This account is disabled.")
    ratelimit_headers.record(request, account, admission.rate)
    group = group_for_path(request.url.path)
    if not account.allows(group.value):
        raise ApiError(ErrorKind.FORBIDDEN, f"This token has no access to the {group.value} endpoints.")
    if not admission.rate.allowed:
        raise RateLimiter.refuse(account, admission.rate)
    request.state.account = account
    return account, admission.prefetched


def require_owner(account: Account, owner_id: str, what: str, *, hide: bool = False) -> None:
    """Tenant isolation: FORBIDDEN (or NOT_FOUND when ``hide``) on another account's resource."""
    if owner_id != account.id:
        kind = ErrorKind.NOT_FOUND if hide else ErrorKind.FORBIDDEN
        message = f"No such {what}." if hide else f"This {what} belongs to another account."
        raise ApiError(kind, message)


def client_address(request: Request, trust_forwarded_for: bool = False) -> str:
    """Who is calling, for per-client limits: the peer address, or the first X-Forwarded-For hop when trusted."""
    if trust_forwarded_for:
        forwarded = request.headers.get("x-forwarded-for", "").split(",")[0].strip()
        if forwarded:
            return forwarded[:64]
    return request.client.host if request.client else "unknown"
