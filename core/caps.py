"""Storage caps: how much one account may keep in the service at once (docs/limits.md).

Quotas (:mod:`core.quotas`) bound what an account *does* in a month; caps
bound what it *holds* at any moment, so one token cannot fill Redis (which
runs without eviction) or the file store. Every cap has a default here; an
operator overrides it per account (``mediatrans-admin account set-limits
--cap NAME=N|unlimited|default``), stored in :attr:`core.accounts.Account.caps`.
Each store checks its caps inside the Lua script that writes, so concurrent
requests cannot overshoot them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from core.errors import ApiError, ErrorKind

if TYPE_CHECKING:
    from core.accounts import Account

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

GLOSSARIES = "glossaries"
GLOSSARY_ENTRIES = "glossary_entries"
GLOSSARY_BYTES = "glossary_bytes"
GLOSSARY_TOTAL_BYTES = "glossary_total_bytes"
MEMORIES = "memories"
MEMORY_ENTRIES = "memory_entries"
MEMORY_BYTES = "memory_bytes"
MEMORY_TOTAL_BYTES = "memory_total_bytes"
PENDING_TASKS = "pending_tasks"
IDEMPOTENCY_RECORDS = "idempotency_records"
IDEMPOTENCY_BYTES = "idempotency_bytes"
OUTPUT_BYTES = "output_bytes"
TTS_STREAMS = "tts_streams"  # not stored: concurrent POST /v1/tts streams (serve_app.stream_slots)

#: Default of every cap (the reasons are in docs/limits.md).
DEFAULTS: dict[str, int] = {
    GLOSSARIES: 100,
    GLOSSARY_ENTRIES: 5000,
    GLOSSARY_BYTES: 1 * MiB,
    GLOSSARY_TOTAL_BYTES: 20 * MiB,
    MEMORIES: 20,
    MEMORY_ENTRIES: 50_000,
    MEMORY_BYTES: 16 * MiB,
    MEMORY_TOTAL_BYTES: 64 * MiB,
    PENDING_TASKS: 100,
    IDEMPOTENCY_RECORDS: 10_000,
    IDEMPOTENCY_BYTES: 20 * MiB,
    OUTPUT_BYTES: 50 * GiB,
    TTS_STREAMS: 4,
}

#: Caps that cannot be raised past what a request may carry anyway (the glossary schema's term limit).
CEILINGS: dict[str, int] = {GLOSSARY_ENTRIES: 5000}

#: Stored in ``Account.caps`` for a cap lifted on that account.
UNLIMITED = -1

NAMES = tuple(DEFAULTS)

#: What one unit of each cap is, for messages.
_UNITS = {
    GLOSSARIES: "glossaries",
    GLOSSARY_ENTRIES: "entries",
    GLOSSARY_BYTES: "bytes",
    GLOSSARY_TOTAL_BYTES: "bytes",
    MEMORIES: "translation memories",
    MEMORY_ENTRIES: "entries",
    MEMORY_BYTES: "bytes",
    MEMORY_TOTAL_BYTES: "bytes",
    PENDING_TASKS: "video tasks queued or processing",
    IDEMPOTENCY_RECORDS: "live Idempotency-Key records",
    IDEMPOTENCY_BYTES: "bytes of stored Idempotency-Key responses",
    OUTPUT_BYTES: "bytes of stored outputs",
    TTS_STREAMS: "open TTS streams",
}

_SUBJECTS = {
    GLOSSARIES: "Glossary cap reached: the account holds",
    GLOSSARY_ENTRIES: "Glossary entry cap exceeded: the glossary has",
    GLOSSARY_BYTES: "Glossary size cap exceeded: the glossary takes",
    GLOSSARY_TOTAL_BYTES: "Glossary storage cap reached: the account's glossaries take",
    MEMORIES: "Translation memory cap reached: the account holds",
    MEMORY_ENTRIES: "Translation memory entry cap exceeded: the memory has",
    MEMORY_BYTES: "Translation memory size cap exceeded: the memory takes",
    MEMORY_TOTAL_BYTES: "Translation memory storage cap reached: the account's memories take",
    PENDING_TASKS: "Pending task cap reached: the account has",
    IDEMPOTENCY_RECORDS: "Idempotency record cap reached: the account holds",
    IDEMPOTENCY_BYTES: "Idempotency storage cap reached: the account holds",
    OUTPUT_BYTES: "Output storage cap reached: the account holds",
    TTS_STREAMS: "TTS stream limit reached: the account has",
}

_REMEDIES = {
    GLOSSARIES: "Delete a glossary first.",
    GLOSSARY_ENTRIES: "Split the glossary.",
    GLOSSARY_BYTES: "Split the glossary.",
    GLOSSARY_TOTAL_BYTES: "Delete or shrink a glossary first.",
    MEMORIES: "Delete a translation memory first.",
    MEMORY_ENTRIES: "Delete entries or split the memory.",
    MEMORY_BYTES: "Delete entries or split the memory.",
    MEMORY_TOTAL_BYTES: "Delete or shrink a translation memory first.",
    PENDING_TASKS: "Wait for a task to finish.",
    IDEMPOTENCY_RECORDS: "Records expire 24 h after their request; send fewer distinct keys.",
    IDEMPOTENCY_BYTES: "Records expire 24 h after their request; send fewer distinct keys.",
    OUTPUT_BYTES: "Outputs are counted until they are deleted, 49 h after they were made.",
    TTS_STREAMS: "Wait for a stream to end.",
}


def effective(account: Account | None, name: str) -> int | None:
    """The account's cap ``name``: its override, else the default; None when unlimited."""
    value = account.caps.get(name, DEFAULTS[name]) if account is not None else DEFAULTS[name]
    return None if value == UNLIMITED else value


def resolve(account: Account | None) -> dict[str, int | None]:
    """Every cap of the account (None: unlimited)."""
    return {name: effective(account, name) for name in NAMES}


def script_value(caps: Mapping[str, int | None], name: str) -> int:
    """A cap as the Lua scripts take it: -1 for unlimited."""
    value = caps.get(name, DEFAULTS[name])
    return UNLIMITED if value is None else value


def parse(item: str) -> tuple[str, int | None]:
    """``NAME=N``, ``NAME=unlimited`` or ``NAME=default`` → (name, stored value; None removes the override).

    Raises ValueError with an operator-facing message.
    """
    name, _, value = item.partition("=")
    if name not in DEFAULTS:
        raise ValueError(f"unknown cap {name!r}; known: {', '.join(NAMES)}")
    if value == "default":
        return name, None
    if value == "unlimited":
        if name in CEILINGS:
            raise ValueError(f"cap {name} cannot be unlimited (at most {CEILINGS[name]})")
        return name, UNLIMITED
    if not value.isdigit():
        raise ValueError(f"cap {item!r}: expected NAME=N, NAME=unlimited or NAME=default")
    number = int(value)
    if name in CEILINGS and number > CEILINGS[name]:
        raise ValueError(f"cap {name} is at most {CEILINGS[name]}")
    return name, number


def exceeded(name: str, used: int, cap: int, *, adding: int | None = None) -> ApiError:
    """The quota error of a refused write: which cap, its value and what the account holds.

    ``adding`` is what the refused write would have added, where that is known.
    """
    held = f"{_SUBJECTS[name]} {used} {_UNITS[name]}"
    if adding is not None:
        held += f" and this request adds {adding}"
    over = "" if adding is None and used == cap else "over "
    return ApiError(ErrorKind.QUOTA_EXCEEDED, f"{held}, {over}its cap ({name}={cap}). {_REMEDIES[name]}")
