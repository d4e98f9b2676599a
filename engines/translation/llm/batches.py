"""How one translate() call is cut for the LLM: segments, batches, their context, their shared fate.

Outer whitespace of a segment is layout and never sent; the rest is cut into
batches of ``batch_size`` consecutive segments, each of which sees a few
neighbouring lines as context. The batches of one request share a ``Job``,
so the first one that fails stops the others.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, wait
from dataclasses import dataclass, field
from typing import TypeVar

from engines.errors import EngineUnavailable
from engines.translation.base import TranslationRequest

#: Neighbouring lines (before, after) a batch sees as context.
Window = tuple[tuple[str, ...], tuple[str, ...]]

#: One segment's translation memory examples (source, target), closest first.
Pairs = tuple[tuple[str, str], ...]

T = TypeVar("T")

#: Lines of context on each side of a batch: standard, professional.
CONTEXT_LINES = {"standard": 2, "professional": 6}


@dataclass(frozen=True)
class Segment:
    """A segment split into outer whitespace and the part worth sending."""

    lead: str
    core: str
    trail: str

    @classmethod
    def of(cls, text: str) -> Segment:
        core = text.strip()
        if not core:
            return cls(text, "", "")
        start = text.index(core)
        return cls(text[:start], core, text[start + len(core) :])

    def wrap(self, translated: str) -> str:
        """Outer whitespace is layout, not language: put it back verbatim."""
        return f"{self.lead}{translated.strip()}{self.trail}" if self.core else self.lead


def chunks(items: Sequence[T], size: int) -> list[list[T]]:
    """Consecutive slices of at most ``size`` items (segments, or their memory examples alongside)."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def context_windows(cores: list[str], n_batches: int, size: int, request: TranslationRequest) -> list[Window]:
    """Each batch's neighbours: the lines just before and after it in the request, then the request's own context."""
    width = CONTEXT_LINES.get(request.hints.mode, 2)
    lines = [*request.context, *cores, *request.following]
    offset = len(request.context)
    windows: list[Window] = []
    for k in range(n_batches):
        start, end = offset + k * size, offset + min(len(cores), (k + 1) * size)
        windows.append((tuple(lines[max(0, start - width) : start]), tuple(lines[end : end + width])))
    return windows


def answer_budget(texts: list[str]) -> int:
    """Completion tokens a sane answer needs at most: the JSON frame plus 1.5 tokens per source character.

    Even a script that takes a token per character (Chinese) stays under it;
    a model that runs away repeating itself is cut off early instead of
    decoding for minutes.
    """
    return 32 + 12 * len(texts) + int(1.5 * sum(len(t) for t in texts))


class Abandoned(Exception):
    """A sibling batch failed, so this one stopped before its next call."""


@dataclass
class Job:
    """One translate() call shared by its batches, so a failure stops the rest.

    Batches check ``abort`` before every call: once one fails, the others
    finish at most the call they have in flight, which keeps backend load
    bounded and leaves no work running after ``translate()`` returns.
    """

    request: TranslationRequest
    abort: threading.Event = field(default_factory=threading.Event)

    def check(self) -> None:
        if self.abort.is_set():
            raise Abandoned

    def abandon(self, futures: list[Future[None]]) -> BaseException:
        """Stop all batches and return the first real error, in batch order."""
        self.abort.set()
        for future in futures:
            future.cancel()
        wait(futures)
        errors = [f.exception() for f in futures if not f.cancelled()]
        real = [e for e in errors if e is not None and not isinstance(e, Abandoned)]
        return real[0] if real else EngineUnavailable("llm engine shut down during the request")
