"""Test scenes: lines of espeak-ng speech at known times over an optional music bed, as audio and as video.

The music bed is a slow chord of harmonic tones under a gentle tremolo: stationary enough to be
a "background", tonal enough that a speech enhancer cannot mistake it for white noise.
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

from tests.support.media import speech_wav

RATE = 48_000


@dataclass(frozen=True)
class SceneLine:
    """``text`` spoken by espeak-ng ``voice`` (e.g. ``en+m3``) from ``start`` seconds."""

    start: float
    text: str
    voice: str = "en"


@dataclass(frozen=True)
class Scene:
    """The mixed audio and its parts at ``RATE``; ``spans`` are (start, end, voice) of each line."""

    audio: np.ndarray
    speech: np.ndarray
    music: np.ndarray
    spans: tuple[tuple[float, float, str], ...]

    @property
    def duration(self) -> float:
        return len(self.audio) / RATE


def music_bed(seconds: float, dbfs: float, seed: int = 0) -> np.ndarray:
    """A chord (A2 C#3 E3 A3 and harmonics) with a 0.25 Hz tremolo, RMS at ``dbfs``."""
    t = np.arange(int(seconds * RATE)) / RATE
    rng = np.random.default_rng(seed)
    bed = np.zeros_like(t)
    for root in (110.0, 138.59, 164.81, 220.0):
        for harmonic, weight in ((1, 1.0), (2, 0.5), (3, 0.25)):
            bed += weight * np.sin(2 * np.pi * root * harmonic * t + rng.uniform(0, 2 * np.pi))
    bed *= 0.75 + 0.25 * np.sin(2 * np.pi * 0.25 * t)
    return (bed * 10 ** (dbfs / 20) / np.sqrt(np.mean(bed**2))).astype(np.float32)


def build_scene(lines: list[SceneLine], seconds: float, music_dbfs: float | None = None, speech_peak: float = 0.6) -> Scene:
    """Lines placed at their starts (each must end before the next starts) over the music bed."""
    speech = np.zeros(int(seconds * RATE), np.float32)
    spans = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, line in enumerate(lines):
            samples, rate = sf.read(speech_wav(Path(tmp) / f"{k}.wav", line.text, line.voice), dtype="float32")
            samples = soxr.resample(samples, rate, RATE).astype(np.float32)
            samples *= speech_peak / (np.abs(samples).max() + 1e-9)
            first = int(line.start * RATE)
            if first + len(samples) > len(speech) or (spans and line.start < spans[-1][1]):
                raise ValueError(f"line {k} overlaps the next one or the end")
            speech[first : first + len(samples)] = samples
            spans.append((line.start, line.start + len(samples) / RATE, line.voice))
    music = music_bed(seconds, music_dbfs) if music_dbfs is not None else np.zeros_like(speech)
    return Scene(speech + music, speech, music, tuple(spans))


def scene_video(scene: Scene, path: Path, size: tuple[int, int] = (320, 240), fps: int = 15) -> Path:
    """An MP4 (H.264 test pattern, AAC audio) carrying the scene's audio."""
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "scene.wav"
        sf.write(wav, scene.audio, RATE, subtype="PCM_16")
        video = ["-f", "lavfi", "-i", f"testsrc2=size={size[0]}x{size[1]}:rate={fps}:duration={scene.duration:.3f}"]
        cmd = ["ffmpeg", "-nostdin", "-v", "error", "-y", *video, "-i", str(wav), "-map", "0:v", "-map", "1:a"]
        cmd += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "192k"]
        subprocess.run([*cmd, "-t", f"{scene.duration:.3f}", "-f", "mp4", str(path)], check=True, timeout=120)
    return path


def decode(path: Path, rate: int = RATE) -> np.ndarray:
    """The first audio stream of ``path``, mono float32 at ``rate``."""
    out = subprocess.run(
        ["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-map", "0:a:0", "-ac", "1", "-ar", str(rate), "-f", "f32le", "-"],
        check=True,
        capture_output=True,
        timeout=120,
    ).stdout
    return np.frombuffer(out, np.float32).copy()
