"""Translation memories (extension, ``/v1/memories``): the blocking ``client.memories`` and the asyncio one.

A memory holds approved pairs of one language pair. A request that names its ``memory_id`` (game localization,
video and subtitle submissions, added languages) is given the most similar pairs as examples, and a segment that
matches a pair exactly is answered from it; a revision's ``translation`` edits can be added to it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from mediatrans_client import _endpoints as ep
from mediatrans_client._fields import MemoryPairs, memory_entries
from mediatrans_client._requests import RequestSpec
from mediatrans_client._transport import AsyncTransport, SyncTransport
from mediatrans_client.models import Memory, MemoryEntriesResult, MemoryEntry, MemoryList

#: Items per page when the iterators walk every page (the service's largest pages: memories, entries).
PAGE = 100
ENTRY_PAGE = 1000


def _create_spec(
    name: str,
    source_lang: str,
    target_lang: str,
    entries: MemoryPairs | None,
    file: ep.SubtitleInput | None,
    description: str | None,
) -> RequestSpec:
    if entries is not None and file is not None:
        raise ValueError("give entries or a file, not both")
    fields: dict[str, Any] = {"name": name, "source_lang": source_lang, "target_lang": target_lang, "description": description}
    return ep.memory_create_spec(fields, None if entries is None else memory_entries(entries), file)


def _sources(sources: Iterable[str]) -> list[str]:
    if isinstance(sources, str):
        return [sources]
    return list(sources)


class Memories:
    """Translation memories: create (from pairs or a TMX/XLIFF/CSV/TSV file), list, read, change entries, delete."""

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def create(
        self,
        name: str,
        source_lang: str,
        target_lang: str,
        entries: MemoryPairs | None = None,
        file: ep.SubtitleInput | None = None,
        description: str | None = None,
    ) -> Memory:
        """Create a memory for one language pair, from ``entries`` or from ``file``, not both (neither: empty).

        ``entries``: ``(source, target)`` tuples, dicts with ``source`` and ``target``, :class:`MemoryEntry` records,
        or one ``{source: target}`` dict; sent as JSON. ``file``: a TMX, XLIFF, CSV or TSV file (a path, bytes or a
        binary file open for reading), sent as a multipart form with the other fields. Keyed: a retry creates once.
        """
        spec = _create_spec(name, source_lang, target_lang, entries, file, description)
        return Memory.model_validate(self._transport.request(spec).json())

    def list(self, *, limit: int | None = None, cursor: str | None = None) -> MemoryList:
        """One page of the account's memories (without entries); ``next_cursor`` is set when more follow."""
        return MemoryList.model_validate(self._transport.request(ep.memory_list_spec(limit, cursor)).json())

    def iter_all(self) -> Iterator[Memory]:
        """Every memory, following ``next_cursor`` page by page."""
        cursor: str | None = None
        while True:
            page = self.list(limit=PAGE, cursor=cursor)
            yield from page.memories
            cursor = page.next_cursor
            if not cursor or not page.memories:
                return

    def get(self, memory_id: str, *, limit: int | None = None, cursor: str | None = None) -> Memory:
        """The record and one page of its ``entries``; ``next_cursor`` is the cursor of the next page of entries."""
        return Memory.model_validate(self._transport.request(ep.memory_get_spec(memory_id, limit, cursor)).json())

    def iter_entries(self, memory_id: str) -> Iterator[MemoryEntry]:
        """Every entry of a memory, page by page."""
        cursor: str | None = None
        while True:
            page = self.get(memory_id, limit=ENTRY_PAGE, cursor=cursor)
            yield from page.entries or []
            cursor = page.next_cursor
            if not cursor or not page.entries:
                return

    def add_entries(self, memory_id: str, entries: MemoryPairs) -> MemoryEntriesResult:
        """Add pairs; a pair whose source matches one already held (whitespace and case aside) replaces it."""
        spec = ep.memory_entries_spec(memory_id, memory_entries(entries), replace_all=False)
        return MemoryEntriesResult.model_validate(self._transport.request(spec).json())

    def replace_entries(self, memory_id: str, entries: MemoryPairs) -> MemoryEntriesResult:
        """Replace every entry of the memory with ``entries`` (``memory``: the record after)."""
        spec = ep.memory_entries_spec(memory_id, memory_entries(entries), replace_all=True)
        return MemoryEntriesResult.model_validate(self._transport.request(spec).json())

    def delete_entries(self, memory_id: str, sources: Iterable[str]) -> MemoryEntriesResult:
        """Remove the entries with these sources; ``deleted`` counts them."""
        spec = ep.memory_delete_entries_spec(memory_id, _sources(sources))
        return MemoryEntriesResult.model_validate(self._transport.request(spec).json())

    def delete(self, memory_id: str) -> bool:
        return bool(self._transport.request(ep.memory_delete_spec(memory_id)).json().get("deleted"))


class AsyncMemories:
    """Translation memories (see the blocking ``Memories``); the iterators are async: ``async for m in ….iter_all()``."""

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def create(
        self,
        name: str,
        source_lang: str,
        target_lang: str,
        entries: MemoryPairs | None = None,
        file: ep.SubtitleInput | None = None,
        description: str | None = None,
    ) -> Memory:
        spec = _create_spec(name, source_lang, target_lang, entries, file, description)
        return Memory.model_validate((await self._transport.request(spec)).json())

    async def list(self, *, limit: int | None = None, cursor: str | None = None) -> MemoryList:
        return MemoryList.model_validate((await self._transport.request(ep.memory_list_spec(limit, cursor))).json())

    async def iter_all(self) -> AsyncIterator[Memory]:
        cursor: str | None = None
        while True:
            page = await self.list(limit=PAGE, cursor=cursor)
            for memory in page.memories:
                yield memory
            cursor = page.next_cursor
            if not cursor or not page.memories:
                return

    async def get(self, memory_id: str, *, limit: int | None = None, cursor: str | None = None) -> Memory:
        return Memory.model_validate((await self._transport.request(ep.memory_get_spec(memory_id, limit, cursor))).json())

    async def iter_entries(self, memory_id: str) -> AsyncIterator[MemoryEntry]:
        cursor: str | None = None
        while True:
            page = await self.get(memory_id, limit=ENTRY_PAGE, cursor=cursor)
            for entry in page.entries or []:
                yield entry
            cursor = page.next_cursor
            if not cursor or not page.entries:
                return

    async def add_entries(self, memory_id: str, entries: MemoryPairs) -> MemoryEntriesResult:
        spec = ep.memory_entries_spec(memory_id, memory_entries(entries), replace_all=False)
        return MemoryEntriesResult.model_validate((await self._transport.request(spec)).json())

    async def replace_entries(self, memory_id: str, entries: MemoryPairs) -> MemoryEntriesResult:
        spec = ep.memory_entries_spec(memory_id, memory_entries(entries), replace_all=True)
        return MemoryEntriesResult.model_validate((await self._transport.request(spec)).json())

    async def delete_entries(self, memory_id: str, sources: Iterable[str]) -> MemoryEntriesResult:
        spec = ep.memory_delete_entries_spec(memory_id, _sources(sources))
        return MemoryEntriesResult.model_validate((await self._transport.request(spec)).json())

    async def delete(self, memory_id: str) -> bool:
        return bool((await self._transport.request(ep.memory_delete_spec(memory_id))).json().get("deleted"))
