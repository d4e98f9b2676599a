"""Charging an account's quotas, and giving them back when the work they paid for does not happen.

Every paid request (a video task, a revision, a grammar check, speech, game text, a voice clone) charges
its metrics at the edge before the costly call and is refunded if that call, or anything else in the block,
fails; work that fails later, in a worker (a queued voice training), is refunded with :func:`refund`:

    async with charged(services.quotas, account, [("grammar_characters", len(text))]):
        result = await call()

Charges are taken in order; a charge that does not fit (``QUOTA_EXCEEDED``) refunds the ones already taken.
A zero amount is skipped. What counts for each metric is written in docs/billing.md. Every refund of the
service goes through this module.
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
        await refund(quotas, account, reversed(taken))
        raise


async def refund(quotas: QuotaLedger, account: Account, charges: Iterable[Charge], *, charged_at: float | None = None) -> None:
    """Give ``charges`` back, to the month they were taken in (``charged_at``, default now)."""
    for metric, amount in charges:
        await quotas.refund(account, metric, amount, charged_at=charged_at)
