"""espeak-ng, the formant synthesizer: robotic but small, fast and in ~45 of the API's languages.

Each sentence runs the ``espeak-ng`` binary once, the text fed on stdin (never on
a command line, never through a shell), the WAV read from stdout. Two native
voices per language, ``espeak.<lang>.female`` and ``espeak.<lang>.male``, are the
language's espeak voice with the ``+f2`` / ``+m1`` variant.

A voice reads at ``base_wpm`` words per minute at speed 1.0, or at the rate the voice table measured
most intelligible for it (``voice_wpm``: formant speech read slower is heard better in some languages).

Options: ``EspeakOptions``.
"""

from __future__ import annotations

import math
import shutil
import struct
import subprocess
from collections.abc import Sequence
from typing import Annotated, Any

import numpy as np
from pydantic import Field, field_validator

from engines.errors import EngineFailure, EngineUnavailable, InvalidInput, UnsupportedLanguage
from engines.options import EngineOptions
from engines.tts.base import NativeVoice, TtsEngine, VoiceStyle

SAMPLE_RATE = 22_050
#: espeak-ng's accepted rate range, words per minute.
MIN_WPM, MAX_WPM = 80, 450
MIN_SPEED, MAX_SPEED = 0.5, 2.0
#: Output quieter than this (peak) is silence: the text had nothing espeak could say.
SILENCE_PEAK = 1e-3
#: Gender → espeak variant; f2 and m1 came out the most intelligible to Whisper (es, de) of f1–f4, m1–m3.
VARIANTS: dict[str, str] = {"female": "f2", "male": "m1"}

#: API language (ISO 639-1) → espeak-ng voice, by language name or voice file name. Those the installed
#: espeak-ng lacks (``tl`` in 1.51) are dropped at start, unless a stand-in is configured
#: (``EspeakOptions.stand_ins``). French is ``fr``: espeak-ng 1.51 ignores the variant of ``fr-fr+m1``, so
#: both genders would sound the same.
# fmt: off
ESPEAK_VOICES: dict[str, str] = {
    "af": "af", "ar": "ar", "az": "az", "bg": "bg", "bn": "bn", "ca": "ca", "cs": "cs", "da": "da", "de": "de",
    "el": "el", "en": "en-us", "es": "es", "et": "et", "fa": "fa", "fi": "fi", "fr": "fr", "he": "he", "hi": "hi",
    "hr": "hr", "hu": "hu", "hy": "hy", "id": "id", "is": "is", "it": "it", "ja": "ja", "ka": "ka", "ko": "ko",
    "lt": "lt", "lv": "lv", "ms": "ms", "my": "my", "nl": "nl", "no": "nb", "pl": "pl", "pt": "pt-br", "ro": "ro",
    "ru": "ru", "sk": "sk", "sl": "sl", "sq": "sq", "sr": "sr", "sv": "sv", "sw": "sw", "th": "th", "tl": "tl",
    "tr": "tr", "uk": "uk", "ur": "ur", "vi": "vi", "zh": "cmn",
}
# fmt: on

#: Everyday words in scripts some espeak-ng builds cannot read: where espeak switches to English ("(en)",
#: reading "Chinese letter" for each kanji, tone digits as English numbers for Hanzi without the extended
#: Mandarin dictionary), the language is not offered.
SCRIPT_PROBES: dict[str, str] = {"ja": "東京", "zh": "你好"}


class EspeakOptions(EngineOptions):
    """How the espeak-ng engine runs the binary."""

    binary: str = Field("espeak-ng", min_length=1, description="Name or path of the espeak-ng executable.")
    timeout_s: float = Field(30.0, gt=0, description="Longest one synthesis may take; beyond it the process is killed.")
    base_wpm: int = Field(175, ge=MIN_WPM, le=MAX_WPM, description="Words per minute at speed 1.0 (espeak-ng's default).")
    stand_ins: dict[str, str] = Field(
        default_factory=dict,
        description="Language → espeak-ng voice of a close language that reads it, for a language espeak-ng has no "
        "voice for (tl: a measured stand-in, calibration/score_voices.py); a language it has keeps its own voice.",
    )
    voice_wpm: dict[str, Annotated[int, Field(ge=MIN_WPM, le=MAX_WPM)]] = Field(
        default_factory=dict,
        description="Voice (espeak.<lang>.<gender>) → its words per minute at speed 1.0, where the voice table "
        "measured a slower read more intelligible (calibration/score_voices.py); other voices read at base_wpm.",
    )

    @field_validator("voice_wpm")
    @classmethod
    def _voice_ids(cls, value: dict[str, int]) -> dict[str, int]:
        for voice in value:
            parts = voice.split(".")
            if len(parts) != 3 or parts[0] != "espeak" or parts[2] not in VARIANTS:
                raise ValueError(f"{voice!r} is not an espeak-ng voice (espeak.<lang>.female|male)")
        return value


class EspeakEngine(TtsEngine):
    """espeak-ng through its command-line program."""

    name = "espeak"
    Options = EspeakOptions
    options: EspeakOptions

    def __init__(self, options: EspeakOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._binary: str | None = None
        self._languages: dict[str, str] = {}
        self._names: dict[str, str] = {}

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> None:
        binary = shutil.which(self.options.binary)
        if binary is None:
            raise EngineUnavailable(f"{self.options.binary} is not installed (apt-get install espeak-ng)")
        try:
            installed = self._installed_voices(binary)
            wanted = {**{c: v for c, v in self.options.stand_ins.items() if ESPEAK_VOICES.get(c) not in installed},
                      **{c: v for c, v in ESPEAK_VOICES.items() if v in installed}}  # fmt: skip
            languages = {
                code: voice
                for code, voice in wanted.items()
                if voice in installed and (code not in SCRIPT_PROBES or self._reads(binary, voice, SCRIPT_PROBES[code]))
            }
        except EngineFailure as exc:
            raise EngineUnavailable(f"espeak-ng does not work: {exc}") from exc
        self._languages = languages
        self._names = {
            code: installed[voice] if ESPEAK_VOICES.get(code) == voice else f"{installed[voice]} reading {code}"
            for code, voice in languages.items()
        }
        self._binary = binary

    def _installed_voices(self, binary: str) -> dict[str, str]:
        """Voice and voice-file names (lower case) → the voice's display name."""
        out = self._run([binary, "--voices"], "").decode("utf-8", errors="replace")
        rows = [line.split() for line in out.splitlines()[1:]]
        rows = [row for row in rows if len(row) >= 5 and not row[4].startswith("mb/")]  # MBROLA voices need extras
        names = {row[4].rsplit("/", 1)[-1].lower(): row[3].replace("_", " ") for row in rows}
        return names | {row[1].lower(): row[3].replace("_", " ") for row in rows}

    def _reads(self, binary: str, voice: str, text: str) -> bool:
        """Whether espeak-ng reads ``text`` in ``voice``'s language rather than switching to English."""
        return b"(en)" not in self._run([binary, "-v", voice, "-q", "-x", "-b", "1", "--stdin"], text)

    def health(self) -> None:
        if self._binary is None:
            raise EngineUnavailable("espeak-ng engine is not started")

    def shutdown(self) -> None:
        self._binary = None

    # ----------------------------------------------------------------- voices

    def languages(self) -> Sequence[str]:
        self.health()
        return tuple(self._languages)

    def voices(self) -> Sequence[NativeVoice]:
        self.health()
        return tuple(
            NativeVoice(
                f"espeak.{code}.{gender}", f"eSpeak NG {self._names[code]} ({gender})", (code,), gender, self.name, SAMPLE_RATE
            )
            for code in self._languages
            for gender in VARIANTS
        )

    # ----------------------------------------------------------------- synthesis

    def speak(self, text: str, voice: str | VoiceStyle, lang: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        """``lang`` picks the espeak language and the voice id its variant, so ``espeak.es.male`` may read English."""
        self.health()
        variant = self._variant(voice)
        espeak_voice = self._languages.get(lang)
        if espeak_voice is None:
            raise UnsupportedLanguage(f"espeak-ng does not speak {lang!r}", target=lang)
        if not text.strip():
            raise InvalidInput("nothing to say: the text is empty")
        base = self.options.voice_wpm.get(str(voice), self.options.base_wpm)  # a valid id (``_variant``): a str
        wpm = round(base * _speed(speed))
        command = [str(self._binary), "-v", f"{espeak_voice}+{variant}", "-s", str(min(max(wpm, MIN_WPM), MAX_WPM))]
        samples, rate = read_wav(self._run([*command, "-b", "1", "--stdin", "--stdout"], text))
        if samples.size == 0 or float(np.max(np.abs(samples))) < SILENCE_PEAK:
            raise InvalidInput("nothing to say: espeak-ng found nothing to pronounce")
        return samples, rate

    def _variant(self, voice: str | VoiceStyle) -> str:
        parts = voice.split(".") if isinstance(voice, str) else []
        if len(parts) != 3 or parts[0] != self.name or parts[2] not in VARIANTS:
            raise InvalidInput(f"unknown espeak-ng voice {voice!r}; voices are espeak.<lang>.female|male")
        return VARIANTS[parts[2]]

    def _run(self, command: list[str], text: str) -> bytes:
        try:
            proc = subprocess.run(command, input=text.encode("utf-8"), capture_output=True, timeout=self.options.timeout_s)
        except subprocess.TimeoutExpired as exc:
            raise EngineFailure(f"espeak-ng took longer than {self.options.timeout_s:g} s") from exc
        except OSError as exc:
            raise EngineUnavailable(f"cannot run espeak-ng: {exc}") from exc
        if proc.returncode != 0:
            message = proc.stderr.decode("utf-8", errors="replace").strip()
            raise EngineFailure(f"espeak-ng exited with {proc.returncode}: {message}")
        return proc.stdout


def _speed(speed: float) -> float:
    if not math.isfinite(speed) or speed <= 0:
        raise InvalidInput(f"speed must be a positive number, got {speed}")
    return min(max(speed, MIN_SPEED), MAX_SPEED)


def read_wav(data: bytes) -> tuple[np.ndarray, int]:
    """16-bit PCM WAV bytes → (float32 mono samples, rate).

    espeak-ng writes to a pipe, so its header's sizes are placeholders: the data chunk runs to the end.
    """
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise EngineFailure("espeak-ng wrote no WAV")
    offset, rate, channels = 12, 0, 1
    while offset + 8 <= len(data):
        chunk, size = data[offset : offset + 4], struct.unpack_from("<I", data, offset + 4)[0]
        if chunk == b"fmt ":
            fmt, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", data, offset + 8)
            if fmt != 1 or bits != 16:
                raise EngineFailure(f"espeak-ng wrote an unexpected WAV format ({fmt}, {bits} bit)")
        elif chunk == b"data":
            pcm = data[offset + 8 :]
            samples = np.frombuffer(pcm[: len(pcm) // (2 * channels) * 2 * channels], dtype="<i2")
            mono = samples.reshape(-1, channels).mean(axis=1) if channels > 1 else samples
            return (mono / 32768.0).astype(np.float32), rate
        offset += 8 + size + (size & 1)
    raise EngineFailure("espeak-ng's WAV has no data")
