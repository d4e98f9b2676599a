"""Cursors of a memory's entry pages: an opaque, short token for the normalised source a page ended at.

Entries are listed in the byte order of their normalised sources (a sorted set read with ZRANGEBYLEX), so
a cursor is a position by text and stays valid while entries come and go. A source may be thousands of
bytes, and a cursor travels in a query string, so it is bounded (at most 200 characters): a source of up
to :data:`KEY_BYTES` bytes is the cursor itself; a longer one is cut to its first :data:`PREFIX_BYTES`
bytes plus 8 bytes of its SHA-1, and a page resumes after the source of that prefix with that digest
(or, if it was deleted meanwhile, from the first source with that prefix: a few entries may repeat,
none is skipped).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
from typing import cast

from redis.asyncio import Redis

from engines.text.memory_files import normalise_source

KEY_BYTES = 140
PREFIX_BYTES = 100
_DIGEST_BYTES = 8
_SCAN = 100
#: The longest cursor issued (base64 of the kind byte and up to KEY_BYTES bytes).
MAX_CURSOR_CHARS = 200
_FOREIGN = "cursor is not one this service issued"


@dataclasses.dataclass(frozen=True)
class EntryCursor:
    """After ``text`` (a whole normalised source), or, with ``digest``, after the source that starts with it."""

    text: str
    digest: bytes | None = None


def _digest(key: str) -> bytes:
    return hashlib.sha1(key.encode()).digest()[:_DIGEST_BYTES]


def encode(key: str) -> str:
    raw = key.encode()
    if len(raw) > KEY_BYTES:
        return _b64(b"h" + _digest(key) + raw[:PREFIX_BYTES].decode("utf-8", "ignore").encode())
    return _b64(b"k" + raw)


def _b64(payload: bytes) -> str:
    return base64.urlsafe_b64encode(payload).decode().rstrip("=")


def decode(cursor: str) -> EntryCursor:
    """ValueError for a cursor this service did not issue."""
    try:
        payload = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        kind, rest = payload[:1], payload[1:]
        if kind == b"h":
            found = EntryCursor(rest[_DIGEST_BYTES:].decode(), rest[:_DIGEST_BYTES])
        elif kind == b"k":
            found = EntryCursor(rest.decode())
        else:
            raise ValueError(_FOREIGN)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(_FOREIGN) from exc
    whole = found.digest is None
    if not found.text or (whole and found.text != normalise_source(found.text)) or (not whole and len(found.digest or b"") < 8):
        raise ValueError(_FOREIGN)
    return found


async def low_bound(redis: Redis, order: str, cursor: EntryCursor) -> str:
    """The ZRANGEBYLEX minimum a page after ``cursor`` starts from."""
    if cursor.digest is None:
        return "(" + cursor.text
    start = "[" + cursor.text
    while True:
        batch = cast("list[str]", await redis.zrangebylex(order, start, "+", start=0, num=_SCAN))
        for member in batch:
            if not member.startswith(cursor.text):
                return "[" + cursor.text
            if _digest(member) == cursor.digest:
                return "(" + member
        if len(batch) < _SCAN:
            return "[" + cursor.text
        start = "(" + batch[-1]
