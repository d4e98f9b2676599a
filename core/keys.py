"""Every Redis key the service writes, with its time to live.

One module owns the key layout so that prefixes never collide and every key
is written with a TTL that matches the contract (section 8): pending tasks
expire after 48 h, download links after 24 h. Keys that must live as long as
the account (accounts, token hashes without expiry, glossaries, voices) are
the only ones without a TTL, and they are removed with their owner.
"""

from __future__ import annotations

PREFIX = "mt"

#: Stands for the caller's account id in keys read during authentication (see ``limits``).
ACCOUNT_PLACEHOLDER = "{account}"

# Time to live, seconds.
TASK_PENDING_EXPIRY_S = 48 * 3600  # contract: expires if pending more than 48 h
TASK_RECORD_TTL_S = 7 * 24 * 3600  # a finished task stays readable a week
DOWNLOAD_LINK_TTL_S = 24 * 3600  # contract: output links valid 24 h
IDEMPOTENCY_TTL_S = 24 * 3600  # a stored response is replayed this long
IDEMPOTENCY_LEASE_S = 30  # a running first request holds its key this long, renewed while it runs
RATE_LIMIT_TTL_S = 3600  # refreshed on every request; covers any window we use
QUOTA_COUNTER_TTL_S = 40 * 24 * 3600  # one calendar month plus margin
SPEED_TTL_S = 30 * 24 * 3600


def account(account_id: str) -> str:
    return f"{PREFIX}:acct:{account_id}"


def account_index() -> str:
    """Set of every account id (for operators)."""
    return f"{PREFIX}:accts"


def account_by_name(name: str) -> str:
    return f"{PREFIX}:acct-name:{name}"


def token(token_hash: str) -> str:
    """Token hash → account id. Only the SHA-256 of a token is ever stored."""
    return f"{PREFIX}:tok:{token_hash}"


def account_tokens(account_id: str) -> str:
    """Hash of token id → token metadata (hash, prefix, created, expiry)."""
    return f"{PREFIX}:acct-toks:{account_id}"


def rate_limit(account_id: str) -> str:
    return f"{PREFIX}:rl:{account_id}"


def anonymous_rate_limit(client: str) -> str:
    """GCRA state of one anonymous caller (client address) on the unauthenticated endpoints."""
    return f"{PREFIX}:rl-anon:{client}"


def quota(account_id: str, metric: str, period: str) -> str:
    return f"{PREFIX}:quota:{account_id}:{metric}:{period}"


def quota_charge(charge_id: str) -> str:
    """Marker of a charge already made (a worker rerunning a task does not charge twice)."""
    return f"{PREFIX}:charged:{charge_id}"


def idempotency(account_id: str, key_hash: str) -> str:
    return f"{PREFIX}:idem:{account_id}:{key_hash}"


def task(task_id: str) -> str:
    return f"{PREFIX}:task:{task_id}"


def account_tasks(account_id: str) -> str:
    """Sorted set of the account's task ids scored by creation time."""
    return f"{PREFIX}:acct-tasks:{account_id}"


def pending_tasks() -> str:
    """Sorted set of unfinished task ids scored by creation time (orphan sweep, queue metrics)."""
    return f"{PREFIX}:tasks-pending"


def held_tasks() -> str:
    """Sorted set of queued tasks without a job yet (an added target waiting for its video's recognition), by
    creation time; ``TaskStore.release`` gives each its job."""
    return f"{PREFIX}:tasks-held"


def job_stream() -> str:
    """The job stream; acknowledged entries are deleted, so it holds only unfinished jobs."""
    return f"{PREFIX}:jobs"


JOB_GROUP = "workers"


def glossary(glossary_id: str) -> str:
    return f"{PREFIX}:gloss:{glossary_id}"


def account_glossaries(account_id: str) -> str:
    return f"{PREFIX}:acct-gloss:{account_id}"


def account_glossary_name(account_id: str, name: str) -> str:
    return f"{PREFIX}:acct-gloss-name:{account_id}:{name}"


WEBHOOK_DELIVERY_TTL_S = 7 * 24 * 3600  # a callback delivery record stays readable a week


def webhook_delivery(task_id: str) -> str:
    """Hash: the callback delivery of one task (state, attempts, last status and error, next_at)."""
    return f"{PREFIX}:hook:{task_id}"


def webhook_due() -> str:
    """Sorted set of task ids whose callback is waiting, scored by the time it is due."""
    return f"{PREFIX}:hook-due"


def webhook_sending() -> str:
    """Sorted set of task ids being sent, scored by the sender's lease deadline."""
    return f"{PREFIX}:hook-sending"


def speed(kind: str) -> str:
    """Measured processing speed of one job kind (see ``core.tasks.speed``)."""
    return f"{PREFIX}:speed:{kind}"


def voice(voice_id: str) -> str:
    """Hash: one cloned voice (no TTL: it lives until deleted)."""
    return f"{PREFIX}:voice:{voice_id}"


def account_voices(account_id: str) -> str:
    """Sorted set: the account's voice ids by creation time (the list order and its cursor)."""
    return f"{PREFIX}:acct-voices:{account_id}"


def account_voice_slots(account_id: str) -> str:
    """Set: the account's voices holding a quota slot (processing or ready; failed ones free it)."""
    return f"{PREFIX}:acct-voice-slots:{account_id}"


def account_voice_names(account_id: str) -> str:
    """Hash: folded voice name → voice id (names are unique per account)."""
    return f"{PREFIX}:acct-voice-names:{account_id}"


def processing_voices() -> str:
    """Sorted set: ids of every account's ``processing`` voices by creation time (housekeeping ends stranded ones)."""
    return f"{PREFIX}:voices-processing"


# Storage caps (core.caps). Glossary usage lives as long as the glossaries; the others expire with what they count.
OUTPUT_RETENTION_S = 49 * 3600  # an output file is deleted by housekeeping this long after it was made


def account_glossary_index(account_id: str) -> str:
    """Sorted set: the account's glossary ids by creation time (list order, cursor and the glossary count).

    Replaces the plain set of :func:`account_glossaries`, which is moved into it on the account's next glossary write
    or listing.
    """
    return f"{PREFIX}:acct-gloss-idx:{account_id}"


def account_glossary_bytes(account_id: str) -> str:
    """Counter: bytes of the account's stored glossary records."""
    return f"{PREFIX}:acct-gloss-bytes:{account_id}"


def account_pending_tasks(account_id: str, kind: str) -> str:
    """Sorted set: the account's unfinished tasks of one kind by creation time.

    Expires ``TASK_PENDING_EXPIRY_S`` after the latest submission: by then every member is past its own expiry.
    """
    return f"{PREFIX}:acct-pending:{account_id}:{kind}"


def account_idempotency_ledger(account_id: str) -> str:
    """Prefix of the ledger (``core.ledger``) of the account's live idempotency records; expires with the last one."""
    return f"{PREFIX}:acct-idem:{account_id}"


def account_output_ledger(account_id: str) -> str:
    """Prefix of the ledger (``core.ledger``) of the account's stored output files; expires with the last one."""
    return f"{PREFIX}:acct-out:{account_id}"


def account_streams(account_id: str, kind: str) -> str:
    """Sorted set: the account's open streams of one kind (``tts``) scored by lease expiry; expires with the last lease."""
    return f"{PREFIX}:acct-streams:{account_id}:{kind}"


# Translation memories (core.memories): no TTL, they live with the account as glossaries do.
def memory(memory_id: str) -> str:
    """Hash: one translation memory's record (name, languages, revision, entry count, bytes)."""
    return f"{PREFIX}:mem:{memory_id}"


def memory_entries(memory_id: str) -> str:
    """Hash: normalised source → JSON ``[source, target]``, the memory's entries."""
    return f"{PREFIX}:mem-entries:{memory_id}"


def memory_entry_order(memory_id: str) -> str:
    """Sorted set (all scores 0): the memory's normalised sources in byte order, for entry pages and their cursor."""
    return f"{PREFIX}:mem-order:{memory_id}"


def account_memory_index(account_id: str) -> str:
    """Sorted set: the account's memory ids by creation time (list order, cursor and the memory count)."""
    return f"{PREFIX}:acct-mem-idx:{account_id}"


def account_memory_bytes(account_id: str) -> str:
    """Counter: bytes of the account's memories (records and entries)."""
    return f"{PREFIX}:acct-mem-bytes:{account_id}"


def account_memory_names(account_id: str) -> str:
    """Hash: memory name → memory id (names are unique per account)."""
    return f"{PREFIX}:acct-mem-names:{account_id}"
