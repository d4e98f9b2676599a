"""Synthetic signals and transcripts for the ASR unit tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

from engines.asr.types import Segment, Transcript, Word

SR = 16_000


def tone(seconds: float, freq: float = 440.0, amp: float = 0.5) -> np.ndarray:
    t = np.arange(round(seconds * SR)) / SR
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def silence(seconds: float, noise: float = 0.0, seed: int = 0) -> np.ndarray:
    n = round(seconds * SR)
    if noise == 0.0:
        return np.zeros(n, dtype=np.float32)
    return (np.random.default_rng(seed).standard_normal(n) * noise).astype(np.float32)


def signal(*parts: tuple[str, float]) -> np.ndarray:
    """``signal(("tone", 10), ("gap", 0.5), ...)``: tones and silences in order."""
    return np.concatenate([tone(s) if kind == "tone" else silence(s) for kind, s in parts])


def transcript(
    words: Sequence[tuple[float, float, str]], offset: float, duration: float, language: str = "en", probability: float = 1.0
) -> Transcript:
    """One segment per word list; times are already absolute (offset included)."""
    ws = tuple(Word(start=a, end=b, text=" " + t) for a, b, t in words)
    segments = (Segment(start=ws[0].start, end=ws[-1].end, text="".join(w.text for w in ws).strip(), words=ws),) if ws else ()
    return Transcript(
        language=language, language_probability=probability, duration=duration, segments=segments, offset=offset, engine="fake"
    )


@pytest.fixture
def make_transcript() -> Callable[..., Transcript]:
    return transcript


@pytest.fixture
def make_signal() -> Callable[..., np.ndarray]:
    return signal
