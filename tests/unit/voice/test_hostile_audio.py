"""Audio that lies about itself: what a header claims (rate, length) never sizes an allocation.

The files are tiny (silence compresses to almost nothing) and built with ffmpeg;
a FLAC's length is edited in its STREAMINFO block. Peak memory is Python's
traced allocations (numpy and ffmpeg's captured output both count).
"""

from __future__ import annotations

import shutil
import subprocess
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile

from engines.asr.audio import load_audio
from engines.audio import decode as audio
from engines.audio.decode import decode, probe_audio
from engines.errors import InvalidInput, SampleDuration, UnsupportedAudioFormat
from engines.voice.sample import inspect_sample
from pipelines.voice_job import read_speech

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs ffmpeg")

PEAK_LIMIT = 50 * 1024 * 1024


def silence_flac(path: Path, rate: int, seconds: float) -> Path:
    source = ["-f", "lavfi", "-i", f"anullsrc=r={rate}:cl=mono", "-t", f"{seconds}"]
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", *source, "-c:a", "flac", "-sample_fmt", "s16",
                    str(path)], check=True, timeout=120)  # fmt: skip
    return path


def claim_length(flac: Path, dst: Path, total_samples: int) -> Path:
    """A copy of ``flac`` whose STREAMINFO states ``total_samples`` (36 bits after rate, channels and depth)."""
    data = bytearray(flac.read_bytes())
    assert data[:4] == b"fLaC" and data[4] & 0x7F == 0  # the first metadata block is STREAMINFO
    at = 8 + 10
    packed = int.from_bytes(data[at : at + 8], "big")
    packed = (packed & ~((1 << 36) - 1)) | total_samples
    data[at : at + 8] = packed.to_bytes(8, "big")
    dst.write_bytes(data)
    return dst


def peak_of(call: Callable[[], Any]) -> tuple[Any, int]:
    """``call()``'s result (or the exception it raised) and the peak of Python allocations while it ran."""
    tracemalloc.start()
    try:
        try:
            result: Any = call()
        except Exception as exc:
            result = exc
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class NoVad:
    """Never reached: every sample here is refused before its speech is looked for."""

    def speech_segments(self, clip: Any) -> list[tuple[float, float]]:
        raise AssertionError("the sample was not refused before the VAD")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hostile-audio")


def test_a_384_khz_flac_is_refused_from_its_header(folder: Path) -> None:
    flac = silence_flac(folder / "384k.flac", 384_000, 60)
    assert flac.stat().st_size < 64_000  # 60 s at 384 kHz in a few KB: it used to decode to 309 MB
    error, peak = peak_of(lambda: inspect_sample(flac, NoVad(), None))  # type: ignore[arg-type]
    assert isinstance(error, UnsupportedAudioFormat) and "192000 Hz maximum" in str(error)
    assert peak < PEAK_LIMIT
    with pytest.raises(UnsupportedAudioFormat):
        decode(flac)  # decode probes too: never decodes it


def test_the_highest_accepted_rate_decodes_at_48_khz_in_bounded_memory(folder: Path) -> None:
    flac = silence_flac(folder / "192k.flac", 192_000, 60)
    assert probe_audio(flac).sample_rate == 192_000
    clip, peak = peak_of(lambda: decode(flac))
    assert clip.sample_rate == audio.MAX_DECODE_RATE == 48_000
    assert len(clip.samples) == pytest.approx(60 * 48_000, abs=48)
    assert peak < PEAK_LIMIT, f"decode peaked at {peak / 2**20:.0f} MiB"  # 60 s at 192 kHz would be 46 MB per copy


def test_a_header_claiming_a_huge_length_is_refused_before_decoding(folder: Path) -> None:
    short = silence_flac(folder / "short.flac", 48_000, 12)
    huge = claim_length(short, folder / "huge.flac", (1 << 36) - 1)  # 398 hours at 48 kHz
    assert probe_audio(huge).duration_s > 1e6
    error, peak = peak_of(lambda: inspect_sample(huge, NoVad(), None))  # type: ignore[arg-type]
    assert isinstance(error, SampleDuration)
    assert peak < PEAK_LIMIT


def test_more_audio_than_the_header_says_is_read_only_up_to_the_cap(folder: Path) -> None:
    hour = silence_flac(folder / "hour.flac", 48_000, 3600)
    liar = claim_length(hour, folder / "liar.flac", 30 * 48_000)  # says 30 s, holds an hour
    assert probe_audio(liar).duration_s == pytest.approx(30.0)
    clip, peak = peak_of(lambda: decode(liar))
    assert clip.duration_s == pytest.approx(audio.MAX_DECODE_S, abs=0.05)
    assert peak < PEAK_LIMIT
    with pytest.raises(SampleDuration):  # 400 1007 on the decoded length
        inspect_sample(liar, NoVad(), None)  # type: ignore[arg-type]


def test_decode_refuses_to_be_asked_for_more_than_48_khz(folder: Path) -> None:
    with pytest.raises(ValueError):
        decode(silence_flac(folder / "plain.flac", 48_000, 1), 96_000)


def test_asr_decoding_refuses_audio_past_its_cap_without_reading_it_all(folder: Path) -> None:
    hour = folder / "hour.flac" if (folder / "hour.flac").exists() else silence_flac(folder / "hour.flac", 48_000, 3600)
    error, peak = peak_of(lambda: load_audio(hour, max_s=60.0))  # a whole hour at 16 kHz would be 230 MB
    assert isinstance(error, InvalidInput) and "over 60 s" in str(error)
    assert peak < PEAK_LIMIT
    assert len(load_audio(hour, max_s=3600.0)) == pytest.approx(3600 * 16_000, abs=16)


def test_stored_speech_is_checked_from_its_header_before_it_is_read(tmp_path: Path) -> None:
    good = tmp_path / "speech.wav"
    soundfile.write(good, np.zeros(16_000 * 20, dtype=np.float32), 16_000, subtype="PCM_16")
    assert read_speech(good).shape == (16_000 * 20,)
    long = tmp_path / "long.wav"
    soundfile.write(long, np.zeros(16_000 * 75, dtype=np.float32), 16_000, subtype="PCM_16")
    with pytest.raises(InvalidInput, match="over 70 s"):
        read_speech(long)
    wide = tmp_path / "wide.wav"
    soundfile.write(wide, np.zeros(48_000, dtype=np.float32), 48_000, subtype="PCM_16")
    with pytest.raises(InvalidInput, match="48000 Hz"):
        read_speech(wide)
