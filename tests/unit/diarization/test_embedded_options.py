"""The embedded diarizer's options: defaults, limits and the echo in describe()."""

from __future__ import annotations

import pytest

from engines.diarization.embedded import EmbeddedDiarizer, EmbeddedDiarizerOptions
from engines.options import OptionsError
from engines.registry import create_engine


def test_defaults_are_echoed_by_describe() -> None:
    assert EmbeddedDiarizer().describe() == {
        "engine": "embedded-diarizer",
        "threads": 2,
        "window_s": 1.5,
        "hop_s": 0.75,
        "threshold": 0.55,
        "max_speakers": 32,
        "min_turn_s": 0.3,
        "vad_threshold": 0.5,
        "pad_s": 0.1,
        "merge_gap_s": 0.5,
    }


def test_the_registry_validates_a_profile_mapping() -> None:
    engine = create_engine("embedded-diarizer", {"threads": 1})
    assert isinstance(engine, EmbeddedDiarizer) and engine.options.threads == 1
    with pytest.raises(OptionsError, match="unknown option 'thread'"):
        create_engine("embedded-diarizer", {"thread": 1})


@pytest.mark.parametrize("bad", [{"hop_s": 2.0}, {"hop_s": 0.0}, {"max_speakers": 0}, {"threads": 0}])
def test_out_of_range_options_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        EmbeddedDiarizerOptions(**bad)
    with pytest.raises(OptionsError):
        EmbeddedDiarizer(**bad)
