"""What makes a video task an added language of another (docs/video-languages.md): a typed field of the job spec.

Its own module, as ``revision_of``, so that :mod:`core.specs.video` can type ``VideoJobSpec.translation_of``
while :mod:`core.specs.added_language` (the request, which builds on the job spec) imports both.
"""

from __future__ import annotations

from pydantic import BaseModel


class TranslationOf(BaseModel):
    """The task whose stored transcript an added language translates, and the task that recognized the video.

    Attributes:
        parent_task_id: the completed task the language was added to (its transcript is translated).
        root_task_id: the task that recognized the video (the parent itself, or the root of its revisions);
            dubbed lines are kept in its folder, as its revisions' are.
    """

    parent_task_id: str
    root_task_id: str
