"""A backend call over its deadline: 503 + Retry-After at the edge, the call cancelled, the work stopped."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from core.errors import ApiError, ErrorGroup, ErrorKind, resolve
from core.settings import AppArgs
from engines.grammar.checker import CheckStopped, GrammarChecker, GrammarRequest
from engines.grammar.rules_engine import RulesEngine
from serve_app.deployment_calls import RETRY_AFTER_S, call


class SlowCall:
    """A deployment call that never answers in time, recording whether it was cancelled."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.cancelled = False

    def __await__(self):  # type: ignore[no-untyped-def]
        return asyncio.sleep(self.seconds, result="late").__await__()

    def cancel(self) -> None:
        self.cancelled = True


async def test_a_call_over_its_deadline_is_cancelled_and_answered_busy() -> None:
    slow = SlowCall(5.0)
    started = time.monotonic()
    with pytest.raises(ApiError) as raised:
        await call(slow, 0.1, "The check")
    assert time.monotonic() - started < 2.0
    assert slow.cancelled
    assert raised.value.kind is ErrorKind.UNAVAILABLE
    assert raised.value.headers["Retry-After"] == str(RETRY_AFTER_S)
    assert resolve(ErrorGroup.GRAMMAR, raised.value.kind) == (503, 5002)
    assert resolve(ErrorGroup.VIDEO, raised.value.kind) == (503, "SERVICE_BUSY")
    assert "0.1 s" in raised.value.message


async def test_a_call_within_its_deadline_answers() -> None:
    assert await call(SlowCall(0.01), 2.0, "The check") == "late"


def test_grammar_deadline_grows_with_the_text_so_a_check_within_the_caps_can_finish() -> None:
    args = AppArgs()
    assert args.grammar_timeout_s(0) == args.handle_timeout_s
    # 50,000 characters took about 50 s on a 2-core machine: the deadline leaves room for a busy one.
    assert args.grammar_timeout_s(50_000) >= 2.5 * 50


class SlowRules(RulesEngine):
    """The portable rules engine, checking in chunks and slowly, counting its checks."""

    name = "quire"  # counted as a grammar engine, so the checker lists (and detects) its languages
    chunkable = True
    chunk_chars = 200

    def __init__(self, options=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(options)
        self.checked = 0

    def check(self, text, options):  # type: ignore[no-untyped-def]
        self.checked += 1
        time.sleep(0.1)
        return super().check(text, options)


def test_a_stopped_check_drops_its_remaining_chunks() -> None:
    engine = SlowRules()
    engine.start()
    checker = GrammarChecker([engine], chunk_chars=200, workers=1)
    try:
        engine.checked = 0
        text = " ".join(f"This is sentence number {i} of a long text." for i in range(200))  # about 45 chunks
        stop = threading.Event()
        threading.Timer(0.35, stop.set).start()
        started = time.monotonic()
        with pytest.raises(CheckStopped):
            checker.check(GrammarRequest(text=text, lang="en"), stop)
        assert time.monotonic() - started < 2.0  # 45 chunks x 0.1 s would be 4.5 s
        checked = engine.checked
        time.sleep(0.3)
        assert engine.checked <= checked + 1  # nothing more runs once stopped (the chunk in progress may finish)
        assert engine.checked < 15
    finally:
        checker.shutdown()
