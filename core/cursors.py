"""Page cursors of the listing endpoints (voices, glossaries): an opaque token for (created time, id)."""

from __future__ import annotations

import base64


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
