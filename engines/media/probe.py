"""What an uploaded file is, and whether the video pipeline accepts it.

``probe`` asks ffprobe; ``parse`` turns ffprobe's JSON into ``MediaInfo`` (pure,
so the rules are testable without media); ``validate`` applies the contract.

The container is decided from what ffprobe found, not from the file name: a
renamed file is judged by its content. Only where one demuxer serves two
containers does a hint decide: MP4 and QuickTime by the ``major_brand`` tag,
then the name's extension, then the codecs; Matroska and WebM by the extension,
then whether every codec is one WebM allows.

Acceptance is deliberately a little wider than the contract's table: any of
the table's video codecs and audio codecs is accepted in any of its
containers (an H.265 ``.mov`` decodes as well as an H.265 ``.mp4``), while
anything that is not audio/video in one of those containers (text, images,
GIF, raw streams) is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engines.errors import MediaTooLarge, NoAudioTrack, UnsupportedMedia
from engines.media.ffmpeg import VIDEO_DEMUXERS, run_tool, stderr_tail, untrusted_input
from engines.media.fields import clock_field, float_field, int_field, rate_field

FFPROBE = "ffprobe"
MAX_DURATION_S = 3 * 3600.0
MAX_BYTES = 500 * 1024 * 1024
#: Smallest picture (width, height) that subtitles are burned onto or a dub is put on.
MIN_RENDER_SIZE = (16, 16)

#: Containers of the contract, by their normalized names.
CONTAINERS: tuple[str, ...] = ("mp4", "mov", "mkv", "avi", "webm", "flv", "wmv")
#: ffprobe codec names of the contract's video codecs (WMV covers its versions 7, 8, 9 and VC-1).
VIDEO_CODECS: frozenset[str] = frozenset({"h264", "hevc", "prores", "vp8", "vp9", "mjpeg", "wmv1", "wmv2", "wmv3", "vc1"})
#: ffprobe codec names of the contract's audio codecs; any ``pcm_*`` counts as PCM.
AUDIO_CODECS: frozenset[str] = frozenset({"aac", "mp3", "opus", "flac", "vorbis", "wmav1", "wmav2", "wmapro", "wmalossless"})
#: Codecs a WebM file may hold; Matroska with only these and no ``.mkv`` name is WebM.
WEBM_CODECS: frozenset[str] = frozenset({"vp8", "vp9", "av1", "opus", "vorbis"})
#: Codecs only QuickTime carries among the table's: a brandless MP4/MOV file with one is MOV.
_MOV_ONLY = ("prores", "pcm_")


@dataclass(frozen=True)
class VideoStream:
    """The first real video stream (cover art and thumbnails are not video)."""

    codec: str
    width: int
    height: int
    #: Average frame rate; 0.0 when the container does not say.
    fps: float


@dataclass(frozen=True)
class AudioStream:
    """The first audio stream: the one transcribed."""

    codec: str
    sample_rate: int
    channels: int
    #: Absolute stream index in the file, as ffmpeg's ``-map 0:<index>`` takes it.
    index: int


@dataclass(frozen=True)
class MediaInfo:
    """What ffprobe found in a file, reduced to what the pipeline decides on."""

    #: One of ``CONTAINERS``, or ffprobe's format name for anything else.
    container: str
    #: ffprobe's raw format name, e.g. ``mov,mp4,m4a,3gp,3g2,mj2``.
    format_name: str
    #: Seconds; 0.0 when neither the container nor any stream states it.
    duration: float
    size_bytes: int
    video: VideoStream | None
    audio: AudioStream | None
    #: How many audio streams there are (only the first is used).
    audio_streams: int


# --------------------------------------------------------------------- probing


def probe(
    path: str | os.PathLike[str],
    timeout_s: float = 30,
    *,
    filename_hint: str | None = None,
    demuxers: Sequence[str] = VIDEO_DEMUXERS,
) -> MediaInfo:
    """Run ffprobe on ``path``; ``filename_hint`` is the upload's original name when it was stored under another.

    Only ``demuxers`` may open the file, and only as a local file (see :func:`untrusted_input`).

    Raises:
        UnsupportedMedia: the file is missing, unreadable, or not media ffprobe knows.
        EngineUnavailable / EngineTimeout: ffprobe is not installed or did not answer in time.
    """
    file = Path(path).absolute()
    if not file.is_file():
        raise UnsupportedMedia("The media file was not found.") from FileNotFoundError(os.fspath(file))
    cmd = [FFPROBE, "-v", "error", *untrusted_input(demuxers), "-print_format", "json", "-show_format", "-show_streams"]
    cmd.append(os.fspath(file))
    proc = run_tool(cmd, timeout_s=timeout_s, what="read the media file")
    if proc.returncode != 0:
        cause = subprocess.CalledProcessError(proc.returncode, cmd, stderr=proc.stderr)
        if b"not on whitelist" in proc.stderr:
            raise UnsupportedMedia(f"Not an accepted video format; accepted: {', '.join(CONTAINERS)}.") from cause
        raise UnsupportedMedia(f"The file could not be read as a video{_reason(proc.stderr, file)}.") from cause
    try:
        data = json.loads(proc.stdout)
    except ValueError as exc:
        raise UnsupportedMedia("The file could not be read as a video.") from exc
    return parse(data, filename_hint=filename_hint or file.name, size_bytes=file.stat().st_size)


def parse(data: Mapping[str, Any], *, filename_hint: str | None = None, size_bytes: int | None = None) -> MediaInfo:
    """``MediaInfo`` from ffprobe's ``-show_format -show_streams`` JSON.

    ``size_bytes`` overrides the size ffprobe reports (the caller's stat is
    authoritative); missing fields become zeros rather than errors, because
    ``validate`` is where a file is judged.
    """
    fmt = data.get("format") or {}
    streams = [s for s in data.get("streams") or () if isinstance(s, Mapping)]
    audio = [s for s in streams if s.get("codec_type") == "audio"]
    video = next((s for s in streams if _is_video(s)), None)
    codecs = [str(s.get("codec_name", "")) for s in ([video] if video else []) + audio]
    format_name = str(fmt.get("format_name", ""))
    brand = str((fmt.get("tags") or {}).get("major_brand", ""))
    return MediaInfo(
        container=normalize_container(format_name, codecs=codecs, major_brand=brand, filename_hint=filename_hint),
        format_name=format_name,
        duration=_duration(fmt, streams),
        size_bytes=size_bytes if size_bytes is not None else int_field(fmt.get("size")),
        video=_video(video) if video else None,
        audio=_audio(audio[0]) if audio else None,
        audio_streams=len(audio),
    )


def _is_video(stream: Mapping[str, Any]) -> bool:
    """Video, but not a still attached as cover art or thumbnail."""
    disposition = stream.get("disposition") or {}
    return stream.get("codec_type") == "video" and not disposition.get("attached_pic")


def _video(s: Mapping[str, Any]) -> VideoStream:
    fps = rate_field(s.get("avg_frame_rate")) or rate_field(s.get("r_frame_rate"))
    return VideoStream(
        codec=str(s.get("codec_name", "")), width=int_field(s.get("width")), height=int_field(s.get("height")), fps=fps
    )


def _audio(s: Mapping[str, Any]) -> AudioStream:
    return AudioStream(
        codec=str(s.get("codec_name", "")),
        sample_rate=int_field(s.get("sample_rate")),
        channels=int_field(s.get("channels")),
        index=int_field(s.get("index")),
    )


def _duration(fmt: Mapping[str, Any], streams: Sequence[Mapping[str, Any]]) -> float:
    """The container's duration, else the longest stream's (Matroska keeps it in a tag)."""
    stated = float_field(fmt.get("duration"))
    if stated > 0:
        return stated
    per_stream = [max(float_field(s.get("duration")), clock_field((s.get("tags") or {}).get("DURATION"))) for s in streams]
    return max(per_stream, default=0.0)


# --------------------------------------------------------------------- containers


def normalize_container(
    format_name: str, *, codecs: Sequence[str] = (), major_brand: str = "", filename_hint: str | None = None
) -> str:
    """The contract's container name for ffprobe's ``format_name``, or ``format_name`` itself."""
    names = set(format_name.split(","))
    ext = Path(filename_hint or "").suffix.lower().lstrip(".")
    if names & {"mov", "mp4"}:
        return _mov_or_mp4(major_brand, ext, codecs)
    if "matroska" in names:
        webm_ok = all(c in WEBM_CODECS for c in codecs)
        return "webm" if webm_ok and ext != "mkv" else "mkv"
    simple = {"asf": "wmv", "avi": "avi", "flv": "flv"}
    return simple.get(format_name, format_name)


def _mov_or_mp4(major_brand: str, ext: str, codecs: Sequence[str]) -> str:
    """QuickTime files carry brand ``qt``; ISO brands are MP4 (3GP and Motion JPEG 2000 are neither)."""
    brand = major_brand.strip().lower()
    if brand:
        if brand == "qt":
            return "mov"
        return "3gp" if brand.startswith("3g") else "mj2" if brand.startswith("mj") else "mp4"
    if ext in ("mov", "qt"):
        return "mov"
    if ext in ("mp4", "m4v"):
        return "mp4"
    return "mov" if any(c.startswith(_MOV_ONLY) for c in codecs) else "mp4"


# --------------------------------------------------------------------- validation


def validate(
    info: MediaInfo, max_duration_s: float = MAX_DURATION_S, max_bytes: int = MAX_BYTES, *, require_video: bool = False
) -> None:
    """Raise when the pipeline must refuse ``info``; checks in the order a user fixes them.

    Raises:
        UnsupportedMedia: no audio/video at all, a container or codec outside
            the table, no video when ``require_video``, or an unknown duration
            (the duration limit could not be enforced).
        NoAudioTrack: video without any audio stream.
        MediaTooLarge: over ``max_bytes`` or ``max_duration_s``.
    """
    _check_kind(info, require_video)
    if info.audio is None:
        raise NoAudioTrack("The video has no audio track to transcribe.")
    if not _audio_ok(info.audio.codec):
        raise UnsupportedMedia(f"Unsupported audio codec {info.audio.codec!r} in {info.container}; accepted: {_audio_list()}.")
    _check_limits(info, max_duration_s, max_bytes)


def _check_kind(info: MediaInfo, require_video: bool) -> None:
    if info.video is None and info.audio is None:
        raise UnsupportedMedia("The file has no video or audio stream.")
    if info.container not in CONTAINERS:
        raise UnsupportedMedia(f"Not an accepted video format ({info.container}); accepted: {', '.join(CONTAINERS)}.")
    if info.video is not None and info.video.codec not in VIDEO_CODECS:
        raise UnsupportedMedia(
            f"Unsupported video codec {info.video.codec!r} in {info.container}; accepted: {', '.join(sorted(VIDEO_CODECS))}."
        )
    if require_video and info.video is None:
        raise UnsupportedMedia("The file has no video stream.")


def check_renderable(info: MediaInfo, *, burns: bool, dubs: bool) -> None:
    """Refuse a file the asked outputs cannot be made from: burning and dubbing write a new video of its picture.

    Both need a video stream (an audio-only upload has none), and one at least
    ``MIN_RENDER_SIZE`` (subtitles on fewer pixels are unreadable, and H.264
    4:2:0 cannot encode a 1-pixel side at all).

    Raises:
        UnsupportedMedia: no video stream, or one smaller than ``MIN_RENDER_SIZE``, for burning or dubbing.
    """
    wanted = [name for name, on in (("burned_video", burns), ("dubbing", dubs)) if on]
    if not wanted:
        return
    needs = " and ".join(wanted)
    if info.video is None:
        raise UnsupportedMedia(f"{needs} needs a video stream; this upload has none.")
    width, height = info.video.width, info.video.height
    min_w, min_h = MIN_RENDER_SIZE
    if width < min_w or height < min_h:
        raise UnsupportedMedia(f"The video is {width}×{height} pixels; {needs} needs at least {min_w}×{min_h}.")


def _check_limits(info: MediaInfo, max_duration_s: float, max_bytes: int) -> None:
    if info.size_bytes > max_bytes:
        raise MediaTooLarge(f"The file is {_size(info.size_bytes)}, over the {_size(max_bytes)} limit.")
    if info.duration > max_duration_s:
        raise MediaTooLarge(f"The duration {_hms(info.duration)} is over the {_hms(max_duration_s)} limit.")
    if info.duration <= 0:
        raise UnsupportedMedia("Cannot determine the duration; re-save the file with a standard tool.")


def _reason(stderr: bytes, file: Path) -> str:
    """ffprobe's reason, e.g. `` (Invalid data found when processing input)``, without the server's path."""
    line = stderr_tail(stderr, 1).removeprefix(f"{file}: ")
    return "" if str(file) in line or not line or line == "no error output" else f" ({line})"


def _audio_ok(codec: str) -> bool:
    return codec in AUDIO_CODECS or codec.startswith("pcm_")


def _audio_list() -> str:
    return ", ".join([*sorted(AUDIO_CODECS), "pcm_*"])


# --------------------------------------------------------------------- small formatters


def _size(size: int) -> str:
    return f"{size} bytes" if size < 1024 * 1024 else f"{size / (1024 * 1024):.1f} MB"


def _hms(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    total = int(seconds)
    return f"{total // 3600}:{total % 3600 // 60:02d}:{total % 60:02d}"
