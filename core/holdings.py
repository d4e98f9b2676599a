"""What an account holds now, per account-wide storage cap (``GET /v1/account``, ``mediatrans-admin account show``)."""

from __future__ import annotations

import time

from redis.asyncio import Redis

from core import caps, keys
from core.glossaries import GlossaryStore
from core.ledger import Ledger
from core.memories import MemoryStore


async def holdings(redis: Redis, account_id: str, pending_expiry_s: int = keys.TASK_PENDING_EXPIRY_S) -> dict[str, int]:
    """The amount each account-wide cap counts (the per-glossary and per-memory caps are checked
    per record, so absent)."""
    glossaries, glossary_bytes = await GlossaryStore(redis).usage(account_id)
    memories, memory_bytes = await MemoryStore(redis).usage(account_id)
    since = time.time() - pending_expiry_s
    pending = await redis.zcount(keys.account_pending_tasks(account_id, "video"), f"({since!r}", "+inf")
    ledger = Ledger(redis)
    records, record_bytes = await ledger.usage(keys.account_idempotency_ledger(account_id))
    _, output_bytes = await ledger.usage(keys.account_output_ledger(account_id))
    return {
        caps.GLOSSARIES: glossaries,
        caps.GLOSSARY_TOTAL_BYTES: glossary_bytes,
        caps.MEMORIES: memories,
        caps.MEMORY_TOTAL_BYTES: memory_bytes,
        caps.PENDING_TASKS: int(pending),
        caps.IDEMPOTENCY_RECORDS: records,
        caps.IDEMPOTENCY_BYTES: record_bytes,
        caps.OUTPUT_BYTES: output_bytes,
    }
