"""Voice-sample audio: what an upload is (by content), and its samples as mono float32.

``probe_audio`` asks ffprobe what the file holds and accepts only the five
sample formats of the contract, whatever the file is called: WAV (PCM), MP3,
FLAC, M4A (AAC or ALAC in an MP4/QuickTime container without video) and OGG
(Vorbis, Opus or FLAC). ``decode`` turns an accepted file into an ``AudioClip``:
ffmpeg decodes, averages the channels and resamples (soxr) before Python sees a
sample.

What a file says about itself never sizes an allocation: rates over
``MAX_SAMPLE_RATE`` are refused at probing, ``decode`` yields at most
``MAX_DECODE_RATE`` samples a second for at most ``MAX_DECODE_S`` seconds, and
ffmpeg's output is cut at that many bytes whatever the stream claims.

Both run ffmpeg-family binaries with the media pipeline's safeguards
(``untrusted_input``: local files and the audio demuxers only, so a playlist
disguised as audio never makes ffmpeg open a URL) and with deadlines.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engines.errors import UnsupportedAudioFormat
from engines.media.ffmpeg import run_tool, stderr_tail, untrusted_input
from engines.media.fields import float_field, int_field

FFMPEG = "ffmpeg"
FFPROBE = "ffprobe"
#: Sample formats of the contract, as ``SampleInfo.format`` names them.
FORMATS: tuple[str, ...] = ("wav", "mp3", "flac", "m4a", "ogg")
#: Demuxers allowed to open a sample (``mov`` also answers to mp4, m4a and 3gp).
AUDIO_DEMUXERS: tuple[str, ...] = ("wav", "mp3", "flac", "mov", "ogg")
#: Audio codecs accepted per demuxer; WAV takes any ``pcm_*`` codec.
_CODECS: dict[str, frozenset[str]] = {
    "mp3": frozenset({"mp3"}),
    "flac": frozenset({"flac"}),
    "m4a": frozenset({"aac", "alac"}),
    "ogg": frozenset({"vorbis", "opus", "flac"}),
}
#: ``decode`` never returns more audio than this; callers refuse longer samples from the probed duration.
MAX_DECODE_S = 70.0
#: Highest sample rate accepted (the highest common studio rate); a file claiming more is refused as unsupported.
MAX_SAMPLE_RATE = 192_000
#: ``decode`` never yields more samples per second than this: ffmpeg brings higher rates down first.
MAX_DECODE_RATE = 48_000
#: How far ``probe_audio`` decodes a file whose container does not state its duration.
MAX_MEASURE_S = 3600.0
PROBE_TIMEOUT_S = 30.0
DECODE_TIMEOUT_S = 60.0
_ACCEPTED = "accepted formats: WAV, MP3, FLAC, M4A (AAC/ALAC), OGG (Vorbis/Opus/FLAC)"


@dataclass(frozen=True)
class AudioClip:
    """Mono audio: float32 samples in [-1, 1] at ``sample_rate`` Hz."""

    samples: np.ndarray
    sample_rate: int

    @property
    def duration_s(self) -> float:
        return len(self.samples) / self.sample_rate

    def resampled(self, rate: int) -> AudioClip:
        """This clip at ``rate`` Hz (soxr, high quality); the clip itself when it is already there."""
        if rate == self.sample_rate:
            return self
        import soxr

        samples = soxr.resample(self.samples, self.sample_rate, rate, quality="HQ")
        return AudioClip(np.clip(samples, -1.0, 1.0).astype(np.float32, copy=False), rate)


@dataclass(frozen=True)
class SampleInfo:
    """What ffprobe found in an accepted sample."""

    #: One of ``FORMATS``, decided by content.
    format: str
    #: ffprobe's codec name of the first audio stream, e.g. ``pcm_s16le``, ``aac``, ``opus``.
    codec: str
    sample_rate: int
    channels: int
    #: From the container, or measured by decoding when the container does not state it.
    duration_s: float


# --------------------------------------------------------------------- probing


def probe_audio(path: str | os.PathLike[str]) -> SampleInfo:
    """Identify a voice sample by its content.

    Raises:
        UnsupportedAudioFormat: missing, unreadable, not one of the accepted
            formats (video, other containers, text, corrupt data), or no audio.
        EngineUnavailable / EngineTimeout: ffprobe is not installed or did not answer in time.
    """
    file = _existing(path)
    data = _ffprobe_json(file)
    fmt = data.get("format") or {}
    streams = [s for s in data.get("streams") or () if isinstance(s, Mapping)]
    audio = next((s for s in streams if s.get("codec_type") == "audio"), None)
    if audio is None:
        raise UnsupportedAudioFormat(f"The file has no audio stream; {_ACCEPTED}.")
    kind = _format_of(str(fmt.get("format_name", "")), streams)
    codec = str(audio.get("codec_name", ""))
    if not _codec_ok(kind, codec):
        raise UnsupportedAudioFormat(f"Audio codec {codec!r} is not accepted in {kind.upper()}; {_ACCEPTED}.")
    rate, channels = int_field(audio.get("sample_rate")), int_field(audio.get("channels"))
    if rate <= 0 or channels <= 0:
        raise UnsupportedAudioFormat(f"The audio stream states no sample rate or channel count; {_ACCEPTED}.")
    if rate > MAX_SAMPLE_RATE:
        raise UnsupportedAudioFormat(f"The sample rate {rate} Hz is over the {MAX_SAMPLE_RATE} Hz maximum; {_ACCEPTED}.")
    duration = float_field(fmt.get("duration")) or float_field(audio.get("duration")) or _decoded_duration(file)
    return SampleInfo(format=kind, codec=codec, sample_rate=rate, channels=channels, duration_s=duration)


def _ffprobe_json(file: Path) -> dict[str, Any]:
    cmd = [FFPROBE, "-v", "error", *untrusted_input(AUDIO_DEMUXERS), "-print_format", "json", "-show_format", "-show_streams"]
    proc = run_tool([*cmd, os.fspath(file)], timeout_s=PROBE_TIMEOUT_S, what="read the voice sample")
    if proc.returncode != 0:
        cause = subprocess.CalledProcessError(proc.returncode, cmd, stderr=proc.stderr)
        if b"not on whitelist" in proc.stderr:
            raise UnsupportedAudioFormat(f"Not an accepted audio format; {_ACCEPTED}.") from cause
        raise UnsupportedAudioFormat(f"The file could not be read as audio; {_ACCEPTED}.") from cause
    try:
        data = json.loads(proc.stdout)
    except ValueError as exc:
        raise UnsupportedAudioFormat(f"The file could not be read as audio; {_ACCEPTED}.") from exc
    return data if isinstance(data, dict) else {}


def _format_of(format_name: str, streams: list[Mapping[str, Any]]) -> str:
    """The contract's format for ffprobe's demuxer name; refuses everything else, and audio beside video."""
    names = set(format_name.split(","))
    kind = "m4a" if "mov" in names else format_name
    if kind not in FORMATS:
        raise UnsupportedAudioFormat(f"Not an accepted audio format ({format_name or 'unknown'}); {_ACCEPTED}.")
    if any(_is_video(s) for s in streams):
        raise UnsupportedAudioFormat(f"The file holds video; send audio only ({_ACCEPTED}).")
    return kind


def _is_video(stream: Mapping[str, Any]) -> bool:
    """A real video stream; cover art attached to an M4A, MP3 or FLAC is not one."""
    disposition = stream.get("disposition") or {}
    return stream.get("codec_type") == "video" and not disposition.get("attached_pic")


def _codec_ok(kind: str, codec: str) -> bool:
    return codec.startswith("pcm_") if kind == "wav" else codec in _CODECS[kind]


def _decoded_duration(file: Path) -> float:
    """Seconds of audio ffmpeg decodes from the first audio stream (up to ``MAX_MEASURE_S``)."""
    cmd = [*_ffmpeg_input(file, MAX_MEASURE_S), "-progress", "pipe:1", "-nostats", "-f", "null", "-"]
    proc = run_tool(cmd, timeout_s=DECODE_TIMEOUT_S, what="measure the voice sample")
    times = [line.split(b"=", 1)[1] for line in proc.stdout.splitlines() if line.startswith(b"out_time_us=")]
    seconds = float_field(times[-1]) / 1e6 if times else 0.0
    if proc.returncode != 0 or seconds <= 0:
        raise UnsupportedAudioFormat(f"The audio could not be decoded; {_ACCEPTED}.")
    return seconds


# --------------------------------------------------------------------- decoding


def decode(path: str | os.PathLike[str], sample_rate: int | None = None, *, info: SampleInfo | None = None) -> AudioClip:
    """The first audio stream as mono float32, at ``sample_rate`` or at its own rate up to ``MAX_DECODE_RATE``.

    Channels are averaged and the rate is changed by ffmpeg (soxr), so Python
    only ever holds the result: at most ``MAX_DECODE_S`` seconds at
    ``MAX_DECODE_RATE``, whatever rate or length the file claims. ``info`` is
    the file's ``probe_audio`` result when the caller has it (else the file is
    probed here, so only accepted formats are ever decoded).

    Raises:
        ValueError: ``sample_rate`` is over ``MAX_DECODE_RATE``.
        UnsupportedAudioFormat: the file is not an accepted format or its audio does not decode.
        EngineUnavailable / EngineTimeout: ffmpeg is not installed or did not finish in time.
    """
    if sample_rate is not None and not 0 < sample_rate <= MAX_DECODE_RATE:
        raise ValueError(f"sample_rate must be 1 to {MAX_DECODE_RATE} Hz, got {sample_rate}")
    file = _existing(path)
    info = info or probe_audio(file)
    rate = sample_rate or min(info.sample_rate, MAX_DECODE_RATE)
    max_samples = int(MAX_DECODE_S * rate)
    graph = _average_channels(info.channels)
    if rate != info.sample_rate:
        graph += f",aresample={rate}:resampler=soxr:precision=20"  # soxr's HQ preset
    cmd = [*_ffmpeg_input(file, MAX_DECODE_S), "-af", graph, "-ac", "1", "-ar", str(rate)]
    cmd += ["-c:a", "pcm_f32le", "-fs", str(max_samples * 4), "-f", "f32le", "-"]
    proc = run_tool(cmd, timeout_s=DECODE_TIMEOUT_S, what="decode the voice sample")
    if proc.returncode != 0:
        cause = subprocess.CalledProcessError(proc.returncode, cmd, stderr=proc.stderr)
        raise UnsupportedAudioFormat(f"The audio could not be decoded ({stderr_tail(proc.stderr, 1)}).") from cause
    # One copy, then cleaned in place: the peak is twice the capped output, never a multiple of it.
    samples = np.frombuffer(proc.stdout, dtype="<f4", count=min(len(proc.stdout) // 4, max_samples)).astype(np.float32)
    del proc
    if samples.size == 0:
        raise UnsupportedAudioFormat("The file decodes to no audio samples.")
    np.nan_to_num(samples, copy=False, nan=0.0, posinf=1.0, neginf=-1.0)
    np.clip(samples, -1.0, 1.0, out=samples)
    return AudioClip(samples, rate)


def _ffmpeg_input(file: Path, max_s: float) -> list[str]:
    """ffmpeg reading at most ``max_s`` seconds of the first audio stream of an untrusted file."""
    cmd = [FFMPEG, "-nostdin", "-hide_banner", "-loglevel", "error", *untrusted_input(AUDIO_DEMUXERS), "-i", os.fspath(file)]
    return [*cmd, "-t", f"{max_s:g}", "-map", "0:a:0", "-vn", "-sn", "-dn"]


def _average_channels(channels: int) -> str:
    """A ``pan`` filter giving each channel weight 1/n (``<`` renormalizes the gains to sum 1)."""
    return "pan=mono|c0<" + "+".join(f"c{i}" for i in range(max(channels, 1)))


# --------------------------------------------------------------------- small helpers


def _existing(path: str | os.PathLike[str]) -> Path:
    """An absolute path (never taken for an option or protocol) of an existing file."""
    file = Path(path).absolute()
    if not file.is_file():
        raise UnsupportedAudioFormat("The voice sample file was not found.") from FileNotFoundError(os.fspath(file))
    return file
