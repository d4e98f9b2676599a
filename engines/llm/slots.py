"""The batched runner's slots and its prompt-reuse policy, without llama.cpp.

A slot is one sequence id of the shared KV cache; it remembers the tokens
whose KV it holds after its request ends. A new request goes to the free slot
that shares the longest prefix with it, or copies a longer prefix from any
other slot; it waits instead when another slot is still reading a prefix it
could share (:func:`should_wait`).
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np

from engines.llm.completion import Generated
from engines.llm.sampling import TokenChooser

#: A queued request may reuse a prefix another slot is still reading when it
#: saves at least this many tokens; shorter shares are not worth the wait.
MIN_SHARED_PREFIX = 16


@dataclass
class QueuedRequest:
    """A completion asked for: its prompt, limits, sampler and the future its caller holds."""

    tokens: list[int]
    max_tokens: int
    chooser: TokenChooser
    stop: tuple[str, ...]
    future: Future[Generated]
    ignore_eos: bool = False
    max_token_run: int = 0  # stop when the last this many tokens are one token (0: never)
    started: float = field(default_factory=time.monotonic)


@dataclass
class Slot:
    """One sequence id of the KV cache and what it is doing."""

    seq: int
    cached: list[int] = field(default_factory=list)  # tokens whose KV this sequence holds, in order
    request: QueuedRequest | None = None
    reused: int = 0
    output: list[int] = field(default_factory=list)
    next_token: int | None = None  # sampled, not yet decoded

    @property
    def reading(self) -> bool:
        return self.request is not None and len(self.cached) < len(self.request.tokens)

    def looping(self) -> bool:
        """The request's last ``max_token_run`` output tokens are one cycle repeated at least three times
        (``¡¡¡¡``, ``la la la``, a sentence said over and over): a degenerate loop."""
        run = self.request.max_token_run if self.request is not None else 0
        if run < 3 or len(self.output) < run:
            return False
        tail = self.output[-run:]
        return any(all(tail[i] == tail[i - period] for i in range(period, run)) for period in range(1, run // 3 + 1))

    def begin(self, request: QueuedRequest, keep: int) -> None:
        """Take ``request``, whose first ``keep`` prompt tokens this slot's cache now holds."""
        self.cached = request.tokens[:keep]
        self.request, self.reused, self.output, self.next_token = request, keep, [], None


@dataclass(frozen=True)
class Placement:
    """Where a request runs: ``slot``, starting from ``keep`` cached tokens copied from ``donor`` (None: its own)."""

    slot: Slot
    donor: Slot | None
    keep: int


def should_wait(request: QueuedRequest, slots: list[Slot]) -> bool:
    """True when another slot is still reading a prefix this request could share."""
    best_cached = max((common_prefix(s.cached, request.tokens) for s in slots), default=0)
    for slot in slots:
        if slot.reading and slot.request is not None:
            shared = common_prefix(slot.request.tokens, request.tokens)
            if shared - best_cached >= MIN_SHARED_PREFIX and len(slot.cached) < shared:
                return True
    return False


def place(request: QueuedRequest, free: list[Slot], slots: list[Slot]) -> Placement:
    """The free slot with the longest own prefix, and the longest prefix any slot can lend it."""
    slot = max(free, key=lambda s: common_prefix(s.cached, request.tokens))
    own = common_prefix(slot.cached, request.tokens)
    donor = max(slots, key=lambda s: common_prefix(s.cached, request.tokens))
    shared = common_prefix(donor.cached, request.tokens)
    keep = min(max(own, shared), len(request.tokens) - 1)  # the last prompt token must be decoded
    return Placement(slot, donor if shared > own and donor is not slot else None, keep)


def common_prefix(a: list[int], b: list[int]) -> int:
    """Length of the common prefix of two token lists."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    left, right = np.asarray(a[:n]), np.asarray(b[:n])
    diff = np.flatnonzero(left != right)
    return int(diff[0]) if len(diff) else n
