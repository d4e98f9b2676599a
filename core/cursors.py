"""Page cursors of the listing endpoints (voices, glossaries, memories): an opaque token for (created time, id)."""

from __future__ import annotations

import base64
from typing import cast

from redis.asyncio import Redis


def encode_cursor(created: float, item_id: str) -> str:
    """The cursor that continues after the item created at ``created`` with ``item_id``."""
    return base64.urlsafe_b64encode(f"{created!r}|{item_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, str]:
    """The (created, id) a cursor points after; ValueError when it is not one this service issued."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        created, sep, item_id = raw.partition("|")
        if not sep:
            raise ValueError(raw)
        return float(created), item_id
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError("cursor is not one this service issued") from exc


async def page_after(redis: Redis, index: str, cursor: str | None, limit: int) -> tuple[list[str], str | None]:
    """Up to ``limit`` ids of the sorted set ``index`` (scored by creation time) after ``cursor``, and the cursor
    of the next page (None on the last). ValueError for a cursor this service did not issue."""
    after = decode_cursor(cursor) if cursor else None
    low = repr(after[0]) if after else "-inf"
    chosen: list[tuple[str, float]] = []
    offset = 0
    while len(chosen) <= limit:  # one more than the page tells whether another page follows
        batch = cast(
            list[tuple[str, float]],
            await redis.zrangebyscore(index, low, "+inf", start=offset, num=limit + 1, withscores=True),
        )
        if not batch:
            break
        offset += len(batch)
        # Ids tied with the cursor's time sort by id (as Redis orders equal scores).
        chosen += [(item, score) for item, score in batch if after is None or (score, item) > after]
    more = len(chosen) > limit
    chosen = chosen[:limit]
    next_cursor = encode_cursor(chosen[-1][1], chosen[-1][0]) if more and chosen else None
    return [item for item, _ in chosen], next_cursor
