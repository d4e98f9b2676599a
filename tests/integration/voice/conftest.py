"""Voice samples for the HTTP tests: real speech (tests/support/speech.py) in the formats the contract accepts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.support import speech

SPEAKER = "two-cities"  # 44 s of clean read speech (moonshine-voice)


@pytest.fixture(scope="session")
def samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Named sample files: a 20 s WAV and its MP3/FLAC/M4A/OGG encodings, plus refused ones."""
    folder = tmp_path_factory.mktemp("voice-samples")
    sample, _held = speech.split_speaker(SPEAKER, 20.0, sample_rate=24_000)
    files = {"wav": speech.write_wav(folder / "sample.wav", sample, 24_000)}
    for fmt, args in {"mp3": ["-b:a", "128k"], "flac": [], "m4a": ["-c:a", "aac"], "ogg": ["-c:a", "libopus"]}.items():
        files[fmt] = folder / f"sample.{fmt}"
        _ffmpeg(["-i", str(files["wav"]), *args, str(files[fmt])])
    files["short"] = speech.write_wav(folder / "short.wav", sample[: 24_000 * 5], 24_000)
    files["low_rate"] = folder / "low.wav"
    _ffmpeg(["-i", str(files["wav"]), "-ar", "8000", str(files["low_rate"])])
    rng = np.random.default_rng(3)
    noisy = sample + rng.normal(0, 1, len(sample)).astype(np.float32) * float(np.sqrt(np.mean(sample**2))) * 0.6
    files["noisy"] = speech.write_wav(folder / "noisy.wav", np.clip(noisy, -1, 1), 24_000)
    tone = 0.3 * np.sin(2 * np.pi * 440 * np.arange(24_000 * 15) / 24_000).astype(np.float32)
    files["music"] = speech.write_wav(folder / "tone.wav", tone * (np.arange(len(tone)) % 12_000 < 9_000), 24_000)
    files["webm"] = folder / "sample.webm"
    _ffmpeg(["-i", str(files["wav"]), "-c:a", "libopus", str(files["webm"])])
    files["text"] = folder / "notes.wav"
    files["text"].write_text("this is not audio\n" * 100)
    return files


def _ffmpeg(args: list[str]) -> None:
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", *args], check=True, timeout=60)
