"""What makes a video task a revision (docs/video-revisions.md): a typed field of the job spec.

Its own module so that :mod:`core.specs.video` can type ``VideoJobSpec.revision`` with it while
:mod:`core.specs.revision` (the revise request, which builds on the job spec) imports both.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.specs.transcript import SegmentEdit


class RevisionOf(BaseModel):
    """What makes a video task a revision: its parent, its place in the chain and its edits.

    Stored in the task record as ``VideoJobSpec.revision`` (records written when it was a plain dict
    have the same keys and validate into it).
    """

    parent_task_id: str
    root_task_id: str
    number: int = Field(ge=1)
    edits: list[SegmentEdit]
