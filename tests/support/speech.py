"""Real and synthetic speech for voice tests, from packages installed on the machine (no network).

Real recordings come from three packages; whatever is not installed is skipped:

* Debian ``codec2-examples`` — ``/usr/share/codec2/raw``: 8 kHz 16-bit raw mono
  (radio amateurs reading call signs, Harvard sentences) and
  ``speech_orig_16k.wav`` (four Harvard sentences, alternating a man and a woman);
* Debian ``alsa-utils`` — ``/usr/share/sounds/alsa``: one woman naming speaker
  positions, 48 kHz WAV;
* PyPI ``moonshine-voice`` (``pip install --no-deps moonshine-voice``) —
  ``moonshine_voice/assets``: a man reading *A Tale of Two Cities* (44 s), a
  man quoting Beckett, a woman's short clip, and a two-voice scene from
  *Endgame* (Nagg and Nell), cut here into each voice's turns.

The catalogue (:data:`CATALOGUE`) gives each recording's speaker and gender
(from the file names, the readers' own words and pitch; the genders are
unambiguous: median F0 at most 135 Hz for the men, at least 170 Hz for the
women). ``docs/speaker-encoders.md`` lists the seconds per speaker. Left out
of the codec2 files: codec output (``*2400``), prefixes of other files
(``hts1a``, ``hts2a``, ``ve9qrp_10s``), concatenations (``hts``, ``all``) and
modem signals (``david4``, ``vk2tpm_004``, ``700d_*``, ``test*``).

Synthetic voices: :func:`espeak` (espeak-ng variants such as ``en+m3``, ``en+f2``).
"""

from __future__ import annotations

import importlib.util
import math
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import soundfile as sf

CODEC2 = Path("/usr/share/codec2/raw")
ALSA = Path("/usr/share/sounds/alsa")
RATE = 16_000
_ALSA_NAMES = ("Front_Center", "Front_Left", "Front_Right", "Rear_Center", "Rear_Left", "Rear_Right", "Side_Left", "Side_Right")
_NAGG = ((0.0, 1.1), (2.3, 3.4), (4.7, 8.3), (11.9, 14.3), (17.5, 18.9), (20.3, 22.0), (23.6, 26.9))
_NELL = ((8.5, 11.1), (15.8, 17.0), (22.4, 23.3))


@dataclass(frozen=True)
class Recording:
    """A stretch of one speaker's real speech in an installed file.

    Attributes:
        speaker: stable id, unique per voice (``ve9qrp``, ``alsa-f``, ``nagg``).
        gender: ``male`` or ``female``.
        path: the file (``.raw`` = 16-bit little-endian mono PCM).
        sample_rate: the file's rate in Hz.
        source: the package that ships it (``codec2-examples``, ``alsa-utils``, ``moonshine-voice``).
        span: ``(start, end)`` seconds within the file, None for the whole file.
    """

    speaker: str
    gender: str
    path: Path
    sample_rate: int
    source: str
    span: tuple[float, float] | None = None

    @property
    def seconds(self) -> float:
        """Length in seconds."""
        if self.span is not None:
            return self.span[1] - self.span[0]
        size = self.path.stat().st_size // 2 if self.path.suffix == ".raw" else sf.info(self.path).frames
        return size / self.sample_rate


def _codec2(name: str, speaker: str, gender: str, rate: int = 8000, span: tuple[float, float] | None = None) -> Recording:
    return Recording(speaker, gender, CODEC2 / name, rate, "codec2-examples", span)


def _moonshine_assets() -> Path | None:
    spec = importlib.util.find_spec("moonshine_voice")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "assets"


def _catalogue() -> tuple[Recording, ...]:
    orig16 = "speech_orig_16k.wav"
    entries = [
        _codec2("ve9qrp.raw", "ve9qrp", "male"),
        _codec2("vk5qi.raw", "vk5qi", "male"),
        _codec2("cq_ref.raw", "ka9q", "male"),
        _codec2("kristoff.raw", "kristoff", "male"),
        _codec2("g3plx.raw", "g3plx", "male"),
        _codec2("hts1.raw", "hts-m", "male"),
        _codec2("hts2.raw", "hts-f", "female"),
        _codec2("morig.raw", "morig", "male"),
        _codec2("forig.raw", "forig", "female"),
        _codec2("big_dog.raw", "big-dog", "male"),
        _codec2("cross.raw", "cross", "male"),
        _codec2("mmt1.raw", "mmt1", "male"),
        _codec2(orig16, "harvard-m", "male", RATE, (0.0, 2.7)),
        _codec2(orig16, "harvard-f", "female", RATE, (2.7, 5.7)),
        _codec2(orig16, "harvard-m", "male", RATE, (5.7, 7.9)),
        _codec2(orig16, "harvard-f", "female", RATE, (7.9, 10.8)),
    ]
    entries += [Recording("alsa-f", "female", ALSA / f"{name}.wav", 48_000, "alsa-utils") for name in _ALSA_NAMES]
    assets = _moonshine_assets()
    if assets is not None:

        def asset(name: str, speaker: str, gender: str, rate: int, span: tuple[float, float] | None = None) -> Recording:
            return Recording(speaker, gender, assets / name, rate, "moonshine-voice", span)

        entries += [
            asset("two_cities.wav", "two-cities", "male", 48_000),
            asset("beckett.wav", "beckett", "male", RATE),
            asset("clone-test.wav", "clone-test", "female", RATE),
        ]
        entries += [asset("endgame_nagg_nell.wav", "nagg", "male", 24_000, span) for span in _NAGG]
        entries += [asset("endgame_nagg_nell.wav", "nell", "female", 24_000, span) for span in _NELL]
    return tuple(entries)


#: Every recording this module knows of, installed or not.
CATALOGUE: tuple[Recording, ...] = _catalogue()

#: Speakers whose identity is certain and who all differ from each other, for same/different-speaker
#: tests. Left out: the single codec2 sentences (``morig``, ``forig``, ``big-dog``, ``cross``, ``mmt1``), whose
#: readers may be among the others (both encoders put ``big-dog`` near ``hts-m``), and ``beckett``,
#: perhaps the ``two-cities`` reader.
DISTINCT_SPEAKERS = (
    "ve9qrp", "vk5qi", "ka9q", "kristoff", "g3plx", "hts-m", "hts-f", "harvard-m", "harvard-f",
    "alsa-f", "two-cities", "clone-test", "nagg", "nell",
)  # fmt: skip


def recordings(speaker: str | None = None, gender: str | None = None) -> list[Recording]:
    """The catalogued recordings present on this machine, optionally of one speaker or gender."""
    return [rec for rec in CATALOGUE if rec.path.is_file() and speaker in (None, rec.speaker) and gender in (None, rec.gender)]


def speakers() -> dict[str, list[Recording]]:
    """Present recordings grouped by speaker, in catalogue order."""
    groups: dict[str, list[Recording]] = {}
    for rec in recordings():
        groups.setdefault(rec.speaker, []).append(rec)
    return groups


def distinct_speakers(min_seconds: float = 0.0) -> list[str]:
    """The :data:`DISTINCT_SPEAKERS` with at least ``min_seconds`` of speech on this machine."""
    return [name for name in DISTINCT_SPEAKERS if recordings(name) and seconds_of(name) >= min_seconds]


def seconds_of(speaker: str) -> float:
    """Seconds of ``speaker``'s speech present on this machine."""
    return sum(rec.seconds for rec in recordings(speaker))


def load(rec: Recording, sample_rate: int = RATE) -> np.ndarray:
    """``rec`` as float32 mono in [-1, 1] at ``sample_rate``."""
    return resample(_read(rec.path, rec.sample_rate, rec.span), rec.sample_rate, sample_rate)


@lru_cache(maxsize=64)
def _read(path: Path, sample_rate: int, span: tuple[float, float] | None) -> np.ndarray:
    if path.suffix == ".raw":
        audio = np.fromfile(path, dtype="<i2").astype(np.float32) / 32768.0
    else:
        audio, rate = sf.read(path, dtype="float32", always_2d=True)
        audio = audio.mean(axis=1)
        assert rate == sample_rate, f"{path}: {rate} Hz, catalogued as {sample_rate} Hz"
    if span is not None:
        audio = audio[round(span[0] * sample_rate) : round(span[1] * sample_rate)]
    audio.flags.writeable = False
    return audio


def resample(audio: np.ndarray, rate: int, target: int) -> np.ndarray:
    """Polyphase resampling of mono float32 audio (a copy, also when the rates match)."""
    if rate == target:
        return np.array(audio, dtype=np.float32)
    from scipy.signal import resample_poly

    g = math.gcd(rate, target)
    return resample_poly(audio, target // g, rate // g).astype(np.float32)


def speaker_audio(speaker: str, sample_rate: int = RATE) -> np.ndarray:
    """All of ``speaker``'s present recordings, concatenated in catalogue order.

    Raises:
        LookupError: when none of the speaker's recordings is installed.
    """
    recs = recordings(speaker)
    if not recs:
        raise LookupError(f"no recording of speaker {speaker!r} on this machine")
    return np.concatenate([load(rec, sample_rate) for rec in recs])


def speaker_passage(speaker: str, seconds: float = 30.0, sample_rate: int = RATE, offset: float = 0.0) -> np.ndarray:
    """``seconds`` of ``speaker``'s speech starting ``offset`` seconds into :func:`speaker_audio`.

    Raises:
        LookupError: when the speaker has less than ``offset + seconds`` seconds here.
    """
    audio = speaker_audio(speaker, sample_rate)
    start, stop = round(offset * sample_rate), round((offset + seconds) * sample_rate)
    if stop > audio.size:
        raise LookupError(f"speaker {speaker!r} has {audio.size / sample_rate:.1f} s here, {offset + seconds:.1f} s wanted")
    return audio[start:stop]


def split_speaker(speaker: str, sample_seconds: float, sample_rate: int = RATE) -> tuple[np.ndarray, np.ndarray]:
    """``(sample, held_aside)``: the first ``sample_seconds`` of the speaker's speech and all that follows.

    The two never overlap, so a voice fitted on ``sample`` can be judged on ``held_aside``.

    Raises:
        LookupError: when fewer than ``sample_seconds + 5`` seconds are present.
    """
    audio = speaker_audio(speaker, sample_rate)
    cut = round(sample_seconds * sample_rate)
    if audio.size < cut + 5 * sample_rate:
        raise LookupError(f"speaker {speaker!r} has {audio.size / sample_rate:.1f} s here, too little to hold aside")
    return audio[:cut], audio[cut:]


def write_wav(path: str | Path, samples: np.ndarray, sample_rate: int = RATE) -> Path:
    """Write mono float samples as 16-bit PCM WAV and return the path."""
    out = Path(path)
    sf.write(out, np.clip(np.asarray(samples, dtype=np.float32), -1.0, 1.0), sample_rate, subtype="PCM_16")
    return out


def espeak(text: str, voice: str = "en+m3", sample_rate: int = RATE, speed: int = 160) -> np.ndarray:
    """espeak-ng reading ``text`` with ``voice`` (e.g. ``en+m3``, ``en+f2``), as float32 at ``sample_rate``.

    Raises:
        RuntimeError: when espeak-ng is not installed.
    """
    binary = shutil.which("espeak-ng")
    if binary is None:
        raise RuntimeError("espeak-ng is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "speech.wav"
        subprocess.run([binary, "-v", voice, "-s", str(speed), "-w", str(wav), text], check=True, timeout=60, capture_output=True)
        audio, rate = sf.read(wav, dtype="float32")
    return resample(audio, rate, sample_rate)
