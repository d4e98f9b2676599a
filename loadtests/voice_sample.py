"""A voice sample for the cloning users of loadtests/locustfile.py, made at start without any recording.

``POST /v1/voice/clone`` wants 10 to 60 s of one speaker's speech (VAD-detected) at an SNR of 20 dB or
more, so a pure tone is refused (400 1009). With espeak-ng installed the sample is espeak-ng reading a
few sentences; without it, a synthesized voice: a glottal pulse train (120 Hz, with intonation)
shaped by vowel formants that change every syllable, in words separated by pauses, over white noise
35 dB down. Either is written as a 16-bit mono WAV with the ``wave`` module.
"""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np

RATE = 24_000
SECONDS = 14.0
TEXT = (
    "Good evening, and welcome to the late news. Heavy rain is expected along the coast tonight, "
    "so please drive carefully. Tomorrow will be cooler, with sunny spells in the afternoon. "
    "That is all for now; thank you for listening, and have a pleasant evening."
)
#: Formants (Hz) of five vowels: a, e, i, o, u.
VOWELS = ((730, 1090, 2440), (530, 1840, 2480), (270, 2290, 3010), (570, 840, 2410), (300, 870, 2240))
BANDWIDTHS = (90.0, 110.0, 170.0)


def write_wav(path: Path, samples: np.ndarray, rate: int = RATE) -> Path:
    """``samples`` (floats in -1..1) as a 16-bit mono WAV."""
    pcm = (np.clip(samples, -1.0, 1.0) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())
    return path


def synthetic_voice(seconds: float = SECONDS, rate: int = RATE, seed: int = 7) -> np.ndarray:
    """Speech-like audio: voiced syllables (formant-shaped harmonics) in words, pauses, faint noise."""
    rng = np.random.default_rng(seed)
    n = int(seconds * rate)
    t = np.arange(n) / rate
    f0 = 120.0 + 15.0 * np.sin(2 * np.pi * 0.4 * t) + 5.0 * np.sin(2 * np.pi * 3.1 * t)
    phase = 2 * np.pi * np.cumsum(f0) / rate
    envelope = np.zeros(n)
    vowel = np.zeros(n, dtype=int)
    position = int(0.3 * rate)
    while position < n - rate // 2:
        for _ in range(int(rng.integers(2, 6))):  # one word: 2 to 5 syllables
            end = min(position + int(rng.uniform(0.16, 0.3) * rate), n)
            if end <= position:
                break
            envelope[position:end] = np.sin(np.linspace(0, np.pi, end - position)) ** 0.6
            vowel[position:end] = int(rng.integers(len(VOWELS)))
            position = end + int(0.03 * rate)
        position += int(rng.uniform(0.15, 0.45) * rate)  # the pause between words
    voiced = np.zeros(n)
    for k in range(1, 30):
        frequency = k * f0
        gain = np.zeros(n)
        for index, formants in enumerate(VOWELS):
            mask = vowel == index
            response = sum(1.0 / (1.0 + ((frequency[mask] - f) / bw) ** 2) for f, bw in zip(formants, BANDWIDTHS))
            gain[mask] = response
        voiced += gain / k * np.sin(k * phase) * (frequency < 0.45 * rate)
    voiced *= envelope
    voiced *= 0.3 / (np.sqrt(np.mean(voiced[envelope > 0] ** 2)) + 1e-9)
    noise = rng.normal(0.0, 1.0, n) * 0.3 * 10 ** (-35 / 20)
    return (voiced + noise).astype(np.float32)


def espeak_voice(folder: Path) -> Path | None:
    """espeak-ng reading :data:`TEXT` (padded and repeated to at least 10 s); None without espeak-ng."""
    espeak = shutil.which("espeak-ng")
    if espeak is None:
        return None
    raw = folder / "espeak.wav"
    subprocess.run([espeak, "-v", "en", "-s", "150", "-w", str(raw), TEXT], check=True, capture_output=True, timeout=60)
    with wave.open(str(raw), "rb") as speech:
        rate, width = speech.getframerate(), speech.getsampwidth()
        if width != 2 or speech.getnchannels() != 1:
            return None
        samples = np.frombuffer(speech.readframes(speech.getnframes()), dtype="<i2").astype(np.float32) / 32768
    pause = np.zeros(int(0.5 * rate), dtype=np.float32)
    clip = np.concatenate([pause, samples, pause])
    while len(clip) < 11 * rate:
        clip = np.concatenate([clip, samples, pause])
    clip = clip[: 50 * rate]
    noise = np.random.default_rng(3).normal(0.0, 1.0, len(clip)).astype(np.float32) * 10 ** (-45 / 20) * 0.1
    return write_wav(folder / "sample.wav", clip + noise, rate)


def make_voice_sample(folder: Path) -> Path:
    """A WAV sample for ``POST /v1/voice/clone`` in ``folder``: espeak-ng speech, else the synthetic voice."""
    try:
        spoken = espeak_voice(folder)
    except (subprocess.SubprocessError, OSError):
        spoken = None
    return spoken or write_wav(folder / "sample.wav", synthetic_voice())
