"""The pyannote engine without pyannote.audio installed: a clear EngineUnavailable, not an ImportError."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from engines.diarization.base import DiarizationEngine
from engines.diarization.pyannote_engine import PyannoteDiarizer, disjoint
from engines.errors import EngineUnavailable, InvalidInput
from engines.registry import create_engine, start_engine

pytestmark = pytest.mark.skipif(importlib.util.find_spec("pyannote") is not None, reason="pyannote.audio is installed")


def test_registry_builds_it_without_importing_pyannote() -> None:
    engine = create_engine("pyannote", {"pipeline": "/models/pyannote", "device": "cuda"})
    assert isinstance(engine, PyannoteDiarizer) and isinstance(engine, DiarizationEngine)
    assert engine.describe() == {
        "engine": "pyannote",
        "pipeline": "/models/pyannote",
        "device": "cuda",
        "max_speakers": 32,
        "encoder_threads": 2,
    }


def test_start_raises_engine_unavailable_naming_the_missing_package() -> None:
    with pytest.raises(EngineUnavailable, match=r"pyannote\.audio"):
        start_engine("pyannote", None, DiarizationEngine)


def test_an_unstarted_engine_is_unhealthy_and_refuses_work() -> None:
    engine = PyannoteDiarizer()
    with pytest.raises(EngineUnavailable):
        engine.health()
    with pytest.raises(EngineUnavailable):
        engine.diarize(np.zeros(16_000, dtype=np.float32))
    with pytest.raises(InvalidInput):
        engine.diarize(np.zeros(16_000, dtype=np.float32), num_speakers=0)


def test_overlapping_pipeline_turns_are_made_disjoint() -> None:
    turns = [(0.0, 2.0, "A"), (1.5, 3.0, "B"), (2.2, 2.8, "A"), (3.0, 4.0, "A")]
    assert disjoint(turns) == [(0.0, 2.0, "A"), (2.0, 3.0, "B"), (3.0, 4.0, "A")]
