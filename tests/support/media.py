"""Small real media files for tests, built with ffmpeg and espeak-ng.

``make_video`` builds one file per container of the upload contract, with a
representative codec pair (``VARIANTS`` lists them; ``codec=`` picks the
alternative of MOV and WebM). Video is ffmpeg's ``testsrc2`` pattern, whose
picture changes every frame and shows a clock, so frame comparisons are
meaningful; audio is espeak-ng speech (``speech_text``) or a 440 Hz tone.
The muxer is chosen explicitly, never from ``path``'s extension, so tests can
also write misleading names. Files are meant to stay small: 320x240, a few
seconds.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

#: Seconds of silence after speech, so the last word is never cut.
SPEECH_TAIL_S = 0.5
DEFAULT_DURATION_S = 2.0
_TIMEOUT_S = 120


@dataclass(frozen=True)
class Variant:
    """One container/codec pair ``make_video`` builds; codec names are ffprobe's."""

    container: str
    video_codec: str
    audio_codec: str
    #: The ``make_video(codec=...)`` value selecting it; None for the container's default.
    codec: str | None = None

    @property
    def id(self) -> str:
        """A readable pytest id, e.g. ``mov-prores``."""
        return f"{self.container}-{self.video_codec}"


VARIANTS: tuple[Variant, ...] = (
    Variant("mp4", "h264", "aac"),
    Variant("mov", "h264", "pcm_s16le"),
    Variant("mov", "prores", "pcm_s16le", codec="prores"),
    Variant("mkv", "h264", "opus"),
    Variant("avi", "mjpeg", "pcm_s16le"),
    Variant("webm", "vp9", "opus"),
    Variant("webm", "vp8", "vorbis", codec="vp8"),
    Variant("flv", "h264", "aac"),
    Variant("wmv", "wmv2", "wmav2"),
)

_H264 = ("-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p")
_VPX_FAST = ("-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k")
#: (container, codec) -> (muxer, video args, audio args with sample rate).
_ENCODERS: dict[tuple[str, str | None], tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    ("mp4", None): ("mp4", _H264, ("-c:a", "aac", "-ar", "44100")),
    ("mov", None): ("mov", _H264, ("-c:a", "pcm_s16le", "-ar", "44100")),
    ("mov", "prores"): ("mov", ("-c:v", "prores_ks", "-profile:v", "0"), ("-c:a", "pcm_s16le", "-ar", "44100")),
    ("mkv", None): ("matroska", _H264, ("-c:a", "libopus", "-ar", "48000")),
    ("avi", None): ("avi", ("-c:v", "mjpeg", "-pix_fmt", "yuvj420p", "-q:v", "5"), ("-c:a", "pcm_s16le", "-ar", "44100")),
    ("webm", None): ("webm", ("-c:v", "libvpx-vp9", *_VPX_FAST), ("-c:a", "libopus", "-ar", "48000")),
    ("webm", "vp8"): ("webm", ("-c:v", "libvpx", *_VPX_FAST), ("-c:a", "libvorbis", "-ar", "44100")),
    ("flv", None): ("flv", _H264, ("-c:a", "aac", "-ar", "44100")),
    ("wmv", None): ("asf", ("-c:v", "wmv2", "-q:v", "5"), ("-c:a", "wmav2", "-ar", "44100")),
}


def speech_wav(path: str | Path, text: str, lang: str = "en", speed: int = 150) -> Path:
    """espeak-ng reading ``text`` with voice ``lang`` at ``speed`` words per minute, as WAV."""
    binary = shutil.which("espeak-ng")
    if binary is None:
        raise RuntimeError("espeak-ng is not installed")
    out = Path(path)
    _run([binary, "-v", lang, "-s", str(speed), "-w", str(out), text])
    return out


def wav_duration(path: str | Path) -> float:
    """Length of a PCM WAV file in seconds."""
    with wave.open(str(path), "rb") as wav:
        return wav.getnframes() / wav.getframerate()


def make_video(
    path: str | Path,
    *,
    container: str,
    codec: str | None = None,
    duration: float | None = None,
    speech_text: str | None = None,
    lang: str = "en",
    audio: bool = True,
    size: tuple[int, int] = (320, 240),
    fps: int = 15,
) -> Path:
    """Write a ``container`` video (see ``VARIANTS``) and return its path.

    With ``speech_text`` the stereo audio is that speech and the file lasts
    the speech plus ``SPEECH_TAIL_S`` (``duration`` must then be None);
    otherwise it is a tone lasting ``duration`` (default 2 s). ``audio=False``
    writes no audio stream at all.
    """
    if (container, codec) not in _ENCODERS:
        raise ValueError(f"no variant {container!r} with codec {codec!r}; see VARIANTS")
    if speech_text is not None and duration is not None:
        raise ValueError("duration follows the speech; give one of speech_text and duration")
    muxer, video_args, audio_args = _ENCODERS[(container, codec)]
    out = Path(path)
    with tempfile.TemporaryDirectory() as tmp:
        source, length = _audio_source(Path(tmp), audio, speech_text, lang, duration)
        video = ["-f", "lavfi", "-i", f"testsrc2=size={size[0]}x{size[1]}:rate={fps}:duration={length}"]
        audio_out = ["-map", "1:a", *audio_args, "-ac", "2", "-af", "apad"] if audio else []
        cmd = ["ffmpeg", "-nostdin", "-v", "error", "-y", *video, *source, "-map", "0:v", *video_args, *audio_out]
        _run([*cmd, "-t", f"{length:.3f}", "-f", muxer, str(out)])
    return out


def _audio_source(tmp: Path, audio: bool, speech_text: str | None, lang: str, duration: float | None) -> tuple[list[str], float]:
    """ffmpeg input arguments for the audio, and the file's length in seconds."""
    if speech_text is not None:
        wav = speech_wav(tmp / "speech.wav", speech_text, lang)
        return ["-i", str(wav)] if audio else [], wav_duration(wav) + SPEECH_TAIL_S
    length = DEFAULT_DURATION_S if duration is None else duration
    return (["-f", "lavfi", "-i", f"sine=frequency=440:duration={length}"] if audio else []), length


def silent_video(path: str | Path, *, container: str = "mp4", duration: float = DEFAULT_DURATION_S) -> Path:
    """A video without any audio stream."""
    return make_video(path, container=container, duration=duration, audio=False)


def not_a_video(path: str | Path, text: str = "This is a plain text file, not a video.\n") -> Path:
    """A text file, whatever its name says."""
    out = Path(path)
    out.write_text(text, encoding="utf-8")
    return out


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=_TIMEOUT_S)
    if proc.returncode != 0:
        raise RuntimeError(f"{Path(cmd[0]).name} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
