"""Decoding with ffmpeg and checking array input."""

from __future__ import annotations

import shutil
import stat
import wave
from pathlib import Path

import numpy as np
import pytest

from engines.asr.audio import as_audio_array, load_audio
from engines.errors import EngineUnavailable, InvalidInput

needs_ffmpeg = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg not installed")


def _write_wav(path, seconds: float, rate: int, channels: int) -> None:
    t = np.arange(int(seconds * rate)) / rate
    mono = (0.5 * np.sin(2 * np.pi * 300 * t) * 32767).astype("<i2")
    frames = np.repeat(mono[:, None], channels, axis=1)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames.tobytes())


@needs_ffmpeg
def test_load_audio_resamples_to_16k_mono_float32(tmp_path):
    path = tmp_path / "stereo8k.wav"
    _write_wav(path, 1.5, 8000, 2)
    audio = load_audio(path)
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert abs(audio.size - 24_000) <= 32
    assert 0.4 < float(np.abs(audio).max()) <= 1.0  # float scale, not int16 counts


@needs_ffmpeg
def test_undecodable_file_is_invalid_input(tmp_path):
    path = tmp_path / "notes.wav"
    path.write_text("not audio at all")
    with pytest.raises(InvalidInput, match="cannot decode"):
        load_audio(path)


def test_missing_file_is_invalid_input(tmp_path):
    with pytest.raises(InvalidInput, match="not found"):
        load_audio(tmp_path / "absent.wav")


def test_missing_ffmpeg_is_unavailable(tmp_path):
    path = tmp_path / "a.wav"
    _write_wav(path, 0.1, 16000, 1)
    with pytest.raises(EngineUnavailable) as info:
        load_audio(path, ffmpeg=str(tmp_path / "no-ffmpeg"))
    assert isinstance(info.value.__cause__, FileNotFoundError)


def test_array_input_is_checked():
    with pytest.raises(InvalidInput):
        as_audio_array(np.zeros((2, 100), np.float32))
    with pytest.raises(InvalidInput):
        as_audio_array(np.zeros(0, np.float32))
    assert as_audio_array(np.zeros(10, np.float64)).dtype == np.float32


def test_a_decoder_killed_by_a_signal_is_retryable_not_bad_input(tmp_path: Path) -> None:
    """A worker being killed takes its ffmpeg with it: the task must go back to the queue, not fail as bad input."""
    killed = tmp_path / "ffmpeg-killed"
    killed.write_text("#!/bin/sh\nkill -9 $$\n")
    killed.chmod(killed.stat().st_mode | stat.S_IEXEC)
    failing = tmp_path / "ffmpeg-failing"
    failing.write_text("#!/bin/sh\necho 'Invalid data found when processing input' >&2\nexit 1\n")
    failing.chmod(failing.stat().st_mode | stat.S_IEXEC)
    media = tmp_path / "x.wav"
    media.write_bytes(b"RIFF")
    with pytest.raises(EngineUnavailable, match="signal 9"):
        load_audio(media, ffmpeg=str(killed))
    with pytest.raises(InvalidInput, match="Invalid data"):
        load_audio(media, ffmpeg=str(failing))
