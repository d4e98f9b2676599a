"""What the batched llama.cpp runner hands back: a finished completion, its counters, its refusal.

These types are all a caller of :class:`~engines.llm.batched.BatchedLlama`
(the chat model, the OpenAI-style app) needs; they import no llama.cpp.
"""

from __future__ import annotations

from dataclasses import dataclass


class ContextFull(RuntimeError):
    """The request does not fit in a slot's share of the KV cache."""


@dataclass(frozen=True)
class Generated:
    """One finished completion."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    finish_reason: str  # "stop" | "length"
    seconds: float


@dataclass
class BatchStats:
    """Counters since start (read under the scheduler's lock)."""

    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    steps: int = 0
    busy_s: float = 0.0

    def record(self, result: Generated) -> None:
        """Count one finished completion."""
        self.requests += 1
        self.prompt_tokens += result.prompt_tokens
        self.cached_tokens += result.cached_tokens
        self.completion_tokens += result.completion_tokens


def cut_at_stops(text: str, stops: tuple[str, ...]) -> str:
    """``text`` up to the first of its stop strings, cut in the order they are given."""
    for stop in stops:
        cut = text.find(stop)
        if cut >= 0:
            text = text[:cut]
    return text
