"""Calls from the edge into a capability deployment, bounded in time.

A call that does not answer within its deadline is cancelled (Ray Serve cancels the replica's request; the
deployments that run work in threads stop at their next checkpoint, see ``deployments/grammar.py``) and
answered ``503`` with ``Retry-After`` and the endpoint group's busy code (``SERVICE_BUSY`` / ``5002``), so a
slow backend never turns into a 500 and abandoned work cannot pile up behind new requests. The charge taken
for the request is refunded by :mod:`core.billing`, as for any failure.
"""

from __future__ import annotations

import asyncio
from typing import Any

from core.errors import ApiError, ErrorKind

#: Seconds a client is asked to wait before it retries a call that ran out of time.
RETRY_AFTER_S = 5


def timed_out(what: str, timeout_s: float) -> ApiError:
    """The answer for a deployment call over its deadline."""
    return ApiError(
        ErrorKind.UNAVAILABLE,
        f"{what} did not finish within {timeout_s:g} s; the service is busy, retry shortly.",
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


async def call(response: Any, timeout_s: float, what: str) -> Any:
    """The result of ``response`` (a deployment call); past ``timeout_s``, the call is cancelled and 503 raised."""
    try:
        return await asyncio.wait_for(response, timeout_s)
    except TimeoutError:
        cancel = getattr(response, "cancel", None)
        if callable(cancel):
            cancel()
        raise timed_out(what, timeout_s) from None
