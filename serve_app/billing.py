"""Charging a request's quotas, and giving them back when the work it paid for does not happen.

Every paid request (a video task, a revision, a grammar check, speech, game text, a voice clone) charges
its metrics before the costly call and is refunded if that call, or anything else in the block, fails:

    async with charged(services.quotas, account, [("grammar_characters", len(text))]):
        result = await call()

Charges are taken in order; a charge that does not fit (``QUOTA_EXCEEDED``) refunds the ones already taken.
A zero amount is skipped. What counts for each metric is written in docs/billing.md.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable

from core.accounts import Account
from core.quotas import QuotaLedger

#: One charge: the quota metric and the amount.
Charge = tuple[str, int]


@contextlib.asynccontextmanager
async def charged(quotas: QuotaLedger, account: Account, charges: Iterable[Charge]) -> AsyncIterator[list[Charge]]:
    """Consume ``charges``; refund every one taken when a later charge or the block raises (cancellation too)."""
    taken: list[Charge] = []
    try:
        for metric, amount in charges:
            if amount:
                await quotas.consume(account, metric, amount)
                taken.append((metric, amount))
        yield taken
    except BaseException:
        for metric, amount in reversed(taken):
            await quotas.refund(account, metric, amount)
        raise
