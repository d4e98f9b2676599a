"""The Diarizer deployment's streaming: progress from the engine's thread, then the result (no Ray started)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from deployments.diarizer import Diarizer
from engines.diarization.base import Diarization, SpeakerTurn
from engines.errors import InvalidInput

RESULT = Diarization((SpeakerTurn(1.0, 2.0, "S1"),), (), "fake")


class FakeEngine:
    """Reports progress from whatever thread it runs in, then returns a fixed result."""

    def diarize(self, audio: np.ndarray, *, num_speakers: int | None = None, offset: float = 0.0, on_progress: Any = None):
        if num_speakers == 0:
            raise InvalidInput("num_speakers must be a positive integer")
        for step in range(1, 11):
            if on_progress:
                on_progress(step / 10)
        return RESULT

    def health(self) -> None:
        return None


def deployment() -> Any:
    instance = Diarizer.func_or_class.__new__(Diarizer.func_or_class)
    instance.engine = FakeEngine()
    return instance


async def test_stream_yields_rising_progress_then_the_diarization() -> None:
    items = [item async for item in deployment().diarize_stream(np.zeros(16_000, dtype=np.float32), 2, 0.0)]
    progress = [item["progress"] for item in items[:-1]]
    assert progress == sorted(progress) and progress[-1] == 1.0
    assert items[-1] == {"diarization": RESULT}


async def test_stream_raises_the_engine_error() -> None:
    with pytest.raises(InvalidInput):
        async for _ in deployment().diarize_stream(np.zeros(16_000, dtype=np.float32), 0, 0.0):
            pass


async def test_diarize_and_health() -> None:
    instance = deployment()
    assert await instance.diarize(np.zeros(16_000, dtype=np.float32), None, 0.0) is RESULT
    assert instance.ready() is True
    instance.check_health()
