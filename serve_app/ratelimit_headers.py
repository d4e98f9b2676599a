"""``X-RateLimit-*`` headers on every response to an authenticated request.

Authentication (:mod:`serve_app.auth`) records the account's rate-limit
state on the request; this middleware writes it into the response headers
as the response starts, whatever produced the response: a route, an error
handler, a streamed body, or the JSON 500 of an exception that escaped the
app (it sits outside :class:`~serve_app.middleware.RequestContextMiddleware`).

* ``X-RateLimit-Limit``: the account's sustained rate, requests per minute.
* ``X-RateLimit-Remaining``: requests that may be sent right now without
  waiting (the unused burst, after this request).
* ``X-RateLimit-Reset``: seconds until the whole burst is available again;
  delta seconds, like ``Retry-After``, so clients need no synchronised clock.
"""

from __future__ import annotations

import dataclasses
import math

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.accounts import Account
from serve_app.limits import RateDecision

#: Key of the request state (``request.state.rate_limit``) that carries the status to the middleware.
STATE_KEY = "rate_limit"


@dataclasses.dataclass(frozen=True)
class RateLimitStatus:
    """What the rate-limit headers say about one request."""

    limit: int
    remaining: int
    reset_s: int

    @classmethod
    def of(cls, account: Account, decision: RateDecision) -> RateLimitStatus:
        remaining = max(0, decision.remaining) if decision.allowed else 0
        return cls(account.rate_per_minute, remaining, max(0, math.ceil(decision.reset_s)))

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_s),
        }


def record(request: Request, account: Account, decision: RateDecision) -> None:
    """Remember the account's rate-limit state for this request's response headers."""
    setattr(request.state, STATE_KEY, RateLimitStatus.of(account, decision))


class RateLimitHeadersMiddleware:
    """Adds the recorded :class:`RateLimitStatus` to the response start (nothing when none was recorded)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # Request.state lives in this dict; creating it here makes sure the app writes to the one we read.
        state = scope.setdefault("state", {})

        async def send_with_limits(message: Message) -> None:
            status = state.get(STATE_KEY) if message["type"] == "http.response.start" else None
            if isinstance(status, RateLimitStatus):
                headers = MutableHeaders(scope=message)
                for name, value in status.headers().items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_limits)
