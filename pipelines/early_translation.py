"""Translation that starts while a long recording is still being recognized.

Recognition of a long video runs chunk by chunk. Each time the recognized part
grows at its front (chunks 0..k all done), :class:`EarlyTranslation` cuts that
part into sentences exactly as the final pass will, and translates the batches
that lie wholly in its settled part — every sentence of the batch and of its
context ends well before the last recognized chunk's end, where the next chunk
may still change a word at the seam. The results are kept under their
:class:`TranslationRequest`; the final pass asks for its requests through
:meth:`EarlyTranslation.translate` and gets a kept result only when the request
is identical (same sentences, same context, same hints), so the output is the
one the job would give without starting early.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from engines.asr.types import Transcript
from engines.translation.base import TranslationRequest, TranslationResult

log = logging.getLogger(__name__)

#: Seconds before the recognized part's end inside which a sentence may still change.
SEAM_MARGIN_S = 3.0

#: Recognized transcript (as the final pass sees it) → sentences and the end time of each.
Sentences = Callable[[Transcript], tuple[list[str], list[float]]]
#: Sentences → the final pass's batch requests, each with the index of its first sentence.
Requests = Callable[[list[str]], list[tuple[int, TranslationRequest]]]
Translate = Callable[[TranslationRequest], Awaitable[TranslationResult]]


def settled_requests(
    sentences: Sequence[str], ends: Sequence[float], until: float, requests: Requests
) -> list[TranslationRequest]:
    """Requests whose sentences and context all end before ``until − SEAM_MARGIN_S``.

    The last sentence is never settled: it may continue in the next chunk.
    """
    settled = 0
    for end in ends[:-1]:
        if end > until - SEAM_MARGIN_S:
            break
        settled += 1
    out = []
    for first, request in requests(list(sentences)):
        reach = first + len(request.texts) + len(request.following)
        if reach <= settled:
            out.append(request)
    return out


class EarlyTranslation:
    """Translates settled batches in the background; the final pass reuses what matches.

    ``offer`` is called on the event loop with each grown recognized prefix; batches are
    translated one at a time, in order, so the final pass never waits on more than one.
    """

    def __init__(self, sentences: Sentences, requests: Requests, translate: Translate) -> None:
        self._sentences, self._requests, self._translate = sentences, requests, translate
        self._done: dict[TranslationRequest, TranslationResult] = {}
        self._queue: asyncio.Queue[list[TranslationRequest] | None] = asyncio.Queue()
        self._worker = asyncio.create_task(self._run())
        self._failed = False

    @property
    def translated_segments(self) -> int:
        return sum(len(r.texts) for r in self._done)

    def offer(self, transcript: Transcript, until: float) -> None:
        """A recognized prefix ending at ``until`` seconds (file timeline)."""
        sentences, ends = self._sentences(transcript)
        self._queue.put_nowait(settled_requests(sentences, ends, until, self._requests))

    async def _run(self) -> None:
        while True:
            batch = await self._queue.get()
            while batch is not None and not self._queue.empty():  # a newer prefix supersedes an older one
                self._queue.task_done()
                batch = self._queue.get_nowait()
            if batch is None:
                self._queue.task_done()
                return
            try:
                await self._translate_settled(batch)
            finally:
                self._queue.task_done()
            if self._failed:
                return

    async def _translate_settled(self, batch: list[TranslationRequest]) -> None:
        for request in batch:
            if not self._queue.empty():  # a newer prefix: start over from it
                return
            if request in self._done:
                continue
            try:
                self._done[request] = await self._translate(request)
            except Exception as exc:  # the final pass asks again and reports the error itself
                log.info("early translation stopped (%s); the final pass translates the rest", exc)
                self._failed = True
                return

    async def drain(self) -> None:
        """Waits until every prefix offered so far is translated (or superseded)."""
        if not self._worker.done():
            await self._queue.join()

    async def finish(self) -> None:
        """Stops after the batch in flight; kept results stay available."""
        self._queue.put_nowait(None)
        await self._worker

    def cancel(self) -> None:
        self._worker.cancel()

    async def translate(self, request: TranslationRequest) -> TranslationResult:
        """The kept result for an identical request, else a fresh translation."""
        kept = self._done.get(request)
        return kept if kept is not None else await self._translate(request)
