"""extract_audio() on real files: 16 kHz mono s16, the right length, the right track and range."""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engines.errors import EngineFailure, EngineTimeout
from engines.media.ffmpeg import extract_audio
from engines.media.probe import probe
from tests.support.media import SPEECH_TAIL_S, make_video, not_a_video, speech_wav, wav_duration

pytestmark = pytest.mark.skipif(
    shutil.which("ffmpeg") is None or shutil.which("espeak-ng") is None, reason="needs ffmpeg and espeak-ng"
)

SPEECH = "Hello world. This is a test of the audio extraction."
RATE = 16_000


def read_wav(path: Path) -> tuple[Any, np.ndarray]:
    with wave.open(str(path), "rb") as wav:
        params = wav.getparams()
        samples = np.frombuffer(wav.readframes(params.nframes), dtype="<i2").astype(np.float32) / 32768
    return params, samples


def dominant_hz(samples: np.ndarray) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(samples.size)))
    return float(np.fft.rfftfreq(samples.size, 1 / RATE)[spectrum.argmax()])


@pytest.fixture(scope="module")
def speech_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Matroska (H.264 + Opus, stereo 48 kHz) video of espeak speech."""
    return make_video(tmp_path_factory.mktemp("speech") / "speech.mkv", container="mkv", speech_text=SPEECH)


@pytest.fixture(scope="module")
def full(speech_video: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return extract_audio(speech_video, tmp_path_factory.mktemp("wav") / "full.wav", timeout_s=60)


def test_whole_track_is_16k_mono_s16_of_the_video_length(speech_video: Path, full: Path, tmp_path: Path) -> None:
    params, samples = read_wav(full)
    assert (params.framerate, params.nchannels, params.sampwidth) == (RATE, 1, 2)
    spoken = wav_duration(speech_wav(tmp_path / "ref.wav", SPEECH))
    assert params.nframes / RATE == pytest.approx(spoken + SPEECH_TAIL_S, abs=0.08)
    assert params.nframes / RATE == pytest.approx(probe(speech_video).duration, abs=0.05)
    assert np.sqrt(np.mean(samples**2)) > 0.01  # speech, not silence
    assert np.abs(samples[-int(0.3 * RATE) :]).max() < 0.01  # the silent tail


def lag_ms(piece: np.ndarray, whole: np.ndarray, start: float) -> tuple[float, float]:
    """Where ``piece`` best matches ``whole`` relative to ``start``: (offset in ms, correlation)."""
    core = piece[800:-800]
    scores = np.correlate(whole, core, "valid")
    best = int(scores.argmax())
    corr = float(np.corrcoef(core, whole[best : best + core.size])[0, 1])
    return ((best - 800) / RATE - start) * 1000, corr


@pytest.mark.parametrize("container", ["mkv", "wmv"])  # Opus and WMA both start with priming samples
def test_range_lines_up_with_the_whole_track(container: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp(container)
    video = make_video(folder / f"speech.{container}", container=container, speech_text=SPEECH)
    _, whole = read_wav(extract_audio(video, folder / "whole.wav", timeout_s=60))
    for start in (0.5, 1.7):
        params, piece = read_wav(extract_audio(video, folder / "part.wav", start=start, end=start + 1.0, timeout_s=60))
        assert params.nframes / RATE == pytest.approx(1.0, abs=0.03)
        offset, corr = lag_ms(piece, whole, start)
        assert corr > 0.95
        assert abs(offset) <= 3.0, f"range starts {offset:.1f} ms off the whole track's timeline"


def test_end_only_and_start_only(speech_video: Path, full: Path, tmp_path: Path) -> None:
    total = read_wav(full)[0].nframes / RATE
    head = extract_audio(speech_video, tmp_path / "head.wav", end=0.75, timeout_s=60)
    tail = extract_audio(speech_video, tmp_path / "tail.wav", start=total - 1.0, timeout_s=60)
    assert wav_duration(head) == pytest.approx(0.75, abs=0.03)
    assert wav_duration(tail) == pytest.approx(1.0, abs=0.05)


def test_first_audio_track_by_default_and_any_by_index(speech_video: Path, tmp_path: Path) -> None:
    two = tmp_path / "two tracks.mkv"
    tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=2"]
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-i", str(speech_video), *tone, "-map", "0:v", "-map", "1:a", "-map", "0:a"]
    subprocess.run([*cmd, "-c:v", "copy", "-c:a", "libopus", "-t", "2", str(two)], check=True, timeout=60)
    info = probe(two)
    assert info.audio is not None and (info.audio.index, info.audio_streams) == (1, 2)
    first = read_wav(extract_audio(two, tmp_path / "first.wav", timeout_s=60))[1]
    second = read_wav(extract_audio(two, tmp_path / "second.wav", audio_index=2, timeout_s=60))[1]
    assert dominant_hz(first) == pytest.approx(440, abs=5)
    assert dominant_hz(second) != pytest.approx(440, abs=5)


def test_undecodable_input_is_engine_failure_and_leaves_nothing(tmp_path: Path) -> None:
    src = not_a_video(tmp_path / "notes.mp4")
    with pytest.raises(EngineFailure, match="Invalid data") as caught:
        extract_audio(src, tmp_path / "out" / "x.wav", timeout_s=60)
    assert isinstance(caught.value.__cause__, subprocess.CalledProcessError)
    assert list((tmp_path / "out").iterdir()) == []


def test_deadline_is_engine_timeout(speech_video: Path, tmp_path: Path) -> None:
    with pytest.raises(EngineTimeout):
        extract_audio(speech_video, tmp_path / "x.wav", timeout_s=0.001)
    assert not (tmp_path / "x.wav").exists()
