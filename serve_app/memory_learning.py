"""Corrections that teach a translation memory (docs/memories.md, "Learning from corrections").

A revision's ``translation`` edit is a person's translation of a segment: when the revision names a memory
(``memory_id``) or its task had one, the pair (the segment's source, as edited when the edit corrects it
too, and the new translation) is added to that memory, replacing the memory's translation of the same
source. Later tasks with the memory then use it verbatim for that sentence, and as an example for similar
ones. The memory's caps apply: a full memory refuses the revision before anything is charged.
"""

from __future__ import annotations

from collections.abc import Sequence

from core import caps
from core.accounts import Account
from core.specs.transcript import SegmentEdit, StoredTranscript
from serve_app.services import Services
from serve_app.steering import check_memory


def corrections(transcript: StoredTranscript, edits: Sequence[SegmentEdit]) -> list[tuple[str, str]]:
    """(source, corrected translation) of every edit that gives a translation, in edit order."""
    sources = {segment.id: segment.source for segment in transcript.segments}
    pairs = []
    for edit in edits:
        if edit.translation is not None and edit.id in sources:
            pairs.append((edit.source or sources[edit.id], edit.translation))
    return pairs


async def learn_corrections(
    services: Services, account: Account, memory_id: str | None, transcript: StoredTranscript, edits: Sequence[SegmentEdit]
) -> int:
    """Add the edits' corrections to the memory; the number of pairs given to it (0 without a memory)."""
    if memory_id is None:
        return 0
    await check_memory(services, account, memory_id, transcript.source_lang, transcript.target_lang)
    pairs = corrections(transcript, edits)
    if not pairs:
        return 0
    added, replaced = await services.memories.put_entries(memory_id, pairs, caps.resolve(account))
    return added + replaced
