"""What every file store offers: stored files, keys, links and their errors.

Output links are valid 24 h (contract section 8) and carry their own
credential, so a customer can pass a subtitle link to a player or a colleague
without an API token. Keys are ``<task_id>/<name>`` with one conservative
character set per segment; anything else is refused before it can reach a
path or a URL.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Protocol, runtime_checkable

DEFAULT_CONTENT_TYPE = "application/octet-stream"
_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class FileStoreError(Exception):
    """The store could not keep a file (disk error, object store refusal or silence)."""


class LinkError(Exception):
    """A download link that does not grant access."""


class LinkExpired(LinkError):
    """An authentic link past its expiry."""


class LinkForged(LinkError):
    """A link whose signature does not match (altered, truncated or invented)."""


@dataclasses.dataclass(frozen=True)
class StoredFile:
    """A file in a store.

    Attributes:
        key: ``<task_id>/<name>``; what links and ``open_path`` take.
        size: bytes.
        content_type: media type served with it.
    """

    key: str
    size: int
    content_type: str = DEFAULT_CONTENT_TYPE

    @property
    def name(self) -> str:
        return self.key.rsplit("/", 1)[-1]


@runtime_checkable
class FileStore(Protocol):
    """Where workers put outputs and where links to them come from."""

    ttl_s: int

    async def put(
        self, task_id: str, name: str, src_path: str | os.PathLike[str], content_type: str, *, consume: bool = False
    ) -> StoredFile:
        """Store ``src_path``; with ``consume`` the caller gives the file up and it may be moved."""
        ...

    def url(self, key: str, expires_at: float) -> str: ...

    def expires_for(self, created_at: float) -> int: ...

    async def fetch(self, key: str, dest: Path) -> Path:
        """A local copy of ``key`` (the file itself where the store is local)."""
        ...


@runtime_checkable
class ServedFileStore(FileStore, Protocol):
    """A store whose links point at this service's ``/v1/files`` route."""

    def verify(self, key: str, expires: str | int, signature: str, *, now: float | None = None) -> None: ...

    def open_path(self, key: str) -> Path: ...

    def describe(self, key: str) -> StoredFile: ...


def object_key(task_id: str, name: str) -> str:
    """``<task_id>/<name>``; raises ValueError for anything that is not a plain segment."""
    for label, segment in (("task id", task_id), ("file name", name)):
        if not _SEGMENT.fullmatch(segment):
            raise ValueError(f"invalid {label} {segment!r}: use letters, digits, '.', '_', '-'")
    return f"{task_id}/{name}"


def is_valid_key(key: str) -> bool:
    parts = key.split("/")
    return len(parts) == 2 and all(_SEGMENT.fullmatch(p) for p in parts)
