"""Task progress weighted by the contract's stage shares, with a measured ETA.

Stages and shares (contract 2.1): validating 2, extracting 10, recognizing 30,
diarizing 15 (only with diarization), translating 25, synthesizing 18,
packaging 5; a revision runs validating, translating, synthesizing and packaging.
Progress is the finished shares plus the running stage's share
times its fraction, rescaled to 100 over the stages this task runs; it never
goes back (the task store also refuses to lower it) and reaches 100 only on
completion. ``estimated_seconds`` while processing is the *remaining* time:
elapsed × (100 − p) / p once p ≥ 5, the submission estimate scaled down before.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

STAGE_SHARES: tuple[tuple[str, int], ...] = (
    ("validating", 2),
    ("extracting", 10),
    ("recognizing", 30),
    ("diarizing", 15),
    ("translating", 25),
    ("synthesizing", 18),
    ("packaging", 5),
)

#: Writes ``(stage, progress, estimated_seconds)`` to the task record.
Sink = Callable[[str, int, int], Awaitable[None]]


#: A revision renders a stored transcript again: nothing is extracted, recognized or diarized.
REVISION_SKIPS = frozenset({"extracting", "recognizing", "diarizing"})


def stages_for(diarization: bool, revision: bool = False) -> tuple[tuple[str, int], ...]:
    skip = REVISION_SKIPS if revision else frozenset() if diarization else frozenset({"diarizing"})
    return tuple((name, share) for name, share in STAGE_SHARES if name not in skip)


class Progress:
    """Tracks the running stage and reports throttled, monotonic updates."""

    def __init__(
        self,
        sink: Sink,
        *,
        diarization: bool = False,
        revision: bool = False,
        initial_estimate_s: int = 60,
        min_interval_s: float = 0.5,
    ) -> None:
        self.sink = sink
        self.stages = stages_for(diarization, revision)
        self.total = sum(share for _, share in self.stages)
        self.initial_estimate_s = max(1, initial_estimate_s)
        self.min_interval_s = min_interval_s
        self.started = time.monotonic()
        self.percent = 0
        self.stage = self.stages[0][0]
        self._last_write = 0.0
        self.entered: dict[str, float] = {}

    def percent_at(self, stage: str, fraction: float) -> int:
        done = 0
        for name, share in self.stages:
            if name == stage:
                value = (done + share * min(max(fraction, 0.0), 1.0)) * 100 / self.total
                return min(99, int(value))
            done += share
        raise ValueError(f"stage {stage!r} is not part of this task")

    def remaining_s(self, percent: int) -> int:
        elapsed = time.monotonic() - self.started
        if percent >= 5:
            return max(1, round(elapsed * (100 - percent) / percent))
        return max(1, round(self.initial_estimate_s * (100 - percent) / 100))

    async def update(self, stage: str, fraction: float = 0.0, *, force: bool = False) -> None:
        if self._order(stage) < self._order(self.stage):  # a late report of a stage already left
            return
        percent = max(self.percent, self.percent_at(stage, fraction))
        now = time.monotonic()
        if not force and stage == self.stage and now - self._last_write < self.min_interval_s:
            return
        self.percent, self.stage, self._last_write = percent, stage, now
        await self.sink(stage, percent, self.remaining_s(percent))

    def _order(self, stage: str) -> int:
        return [name for name, _ in self.stages].index(stage)

    async def enter(self, stage: str) -> None:
        self.entered[stage] = time.monotonic()
        await self.update(stage, 0.0, force=True)

    def timings(self) -> dict[str, float]:
        """Seconds spent in each stage entered so far (the last one until now)."""
        marks = [*self.entered.items(), ("end", time.monotonic())]
        return {stage: round(marks[i + 1][1] - at, 2) for i, (stage, at) in enumerate(marks[:-1])}
