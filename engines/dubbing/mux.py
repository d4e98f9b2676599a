"""The dubbed video: the source's picture with the new audio track, as MP4; and the source's audio out.

``replace_audio`` maps the first real video stream of the source (cover art
excluded) and the new WAV, and nothing else: the source's audio streams,
subtitles and data streams are dropped, so the result has exactly one audio
track. The picture is **copied** packet for packet (``-c:v copy``: no
quality loss, no encoding time, timestamps kept) when MP4 can carry the
codec and common players decode it there (``COPY_CODECS``: H.264, H.265
tagged ``hvc1`` for Apple players, VP9, AV1). Other codecs (ProRes, VP8,
WMV/VC-1, MJPEG) cannot go into MP4 or play badly from it, so they are
re-encoded with libx264 at the settings of burned subtitles
(``X264_PRESET``/``X264_CRF``, yuv420p, even size, frame timestamps passed
through). The audio is encoded AAC at ``AAC_BITRATE``, padded with silence
(``apad``) and the output cut at the source's duration (``-t``), so the
result lasts as long as the source whether the new audio is shorter or
longer (``-shortest`` alone would end a video early at a short track).
``+faststart`` puts the index first so players start before the download
ends; the file is written under a temporary name and renamed.

``extract_full_audio`` writes the first audio stream as mono 16-bit WAV at a
chosen rate, whole, placed by its timestamps like ``extract_audio`` (the
speech-recognition extraction, fixed at 16 kHz): sample ``n`` is media time
``n / rate``, the timeline the dubbed lines are placed on.
"""

from __future__ import annotations

import os
from pathlib import Path

from engines.errors import NoAudioTrack, UnsupportedMedia
from engines.media.ffmpeg import (
    AAC_BITRATE,
    X264_CRF,
    X264_PRESET,
    _atomic_output,
    _ffmpeg,
    _input,
    untrusted_input,
)
from engines.media.probe import probe

#: Video codecs (ffprobe names) copied into the MP4 as they are; any other is re-encoded to H.264.
COPY_CODECS: frozenset[str] = frozenset({"h264", "hevc", "vp9", "av1"})
PROBE_TIMEOUT_S = 30.0


def replace_audio(
    video: str | os.PathLike[str],
    audio_wav: str | os.PathLike[str],
    dst_mp4: str | os.PathLike[str],
    *,
    timeout_s: float,
    threads: int | None = None,
) -> Path:
    """Write ``dst_mp4``: the source's first video stream and ``audio_wav`` as its only audio track.

    The output lasts as long as the source (the container's duration). ``threads``
    bounds ffmpeg's threads when the video has to be re-encoded. Returns the absolute output path.

    Raises:
        UnsupportedMedia: the source has no video stream or states no duration.
        InvalidInput: a file is missing.
        EngineFailure / EngineUnavailable / EngineTimeout: ffmpeg failed, is missing or too slow.
    """
    info = probe(video, timeout_s=min(PROBE_TIMEOUT_S, timeout_s))
    if info.video is None:
        raise UnsupportedMedia("The file has no video stream to put the dubbed audio on.")
    if info.duration <= 0:
        raise UnsupportedMedia("The video states no duration.")
    args = [*untrusted_input(), "-i", _input(video), "-i", _input(audio_wav)]
    args += ["-map", "0:V:0", "-map", "1:a:0", "-map_metadata", "0", "-map_chapters", "-1"]
    args += _video_codec(info.video.codec, threads)
    args += ["-af", "apad", "-c:a", "aac", "-b:a", AAC_BITRATE, "-t", f"{info.duration:.3f}"]
    args += ["-movflags", "+faststart", "-max_muxing_queue_size", "4096"]
    with _atomic_output(dst_mp4) as tmp:
        _ffmpeg([*args, "-f", "mp4", os.fspath(tmp)], timeout_s=timeout_s, what="put the dubbed audio on the video")
    return Path(dst_mp4).absolute()


def _video_codec(codec: str, threads: int | None) -> list[str]:
    """Copy the picture when MP4 carries ``codec`` well; else re-encode it to H.264."""
    if codec in COPY_CODECS:
        return ["-c:v", "copy", *(["-tag:v", "hvc1"] if codec == "hevc" else [])]
    args = ["-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p", "-fps_mode", "passthrough"]
    args += ["-c:v", "libx264", "-preset", X264_PRESET, "-crf", str(X264_CRF), "-pix_fmt", "yuv420p"]
    if threads is not None:
        args += ["-threads", str(int(threads)), "-filter_threads", str(int(threads))]
    return args


def extract_full_audio(
    video: str | os.PathLike[str], dst_wav: str | os.PathLike[str], rate: int = 48_000, *, timeout_s: float
) -> Path:
    """Write the first audio stream, whole, as mono 16-bit WAV at ``rate`` Hz; returns the absolute path.

    "Whole" is up to the duration the container states (what the task was charged for): a stream longer
    than its container says is not decoded past it.

    Raises:
        NoAudioTrack: the source has no audio stream.
        InvalidInput: the file is missing.
        EngineFailure / EngineUnavailable / EngineTimeout: ffmpeg failed, is missing or too slow.
    """
    info = probe(video, timeout_s=min(PROBE_TIMEOUT_S, timeout_s))
    if info.audio is None:
        raise NoAudioTrack("The video has no audio track.")
    args = [*untrusted_input(), "-i", _input(video), "-map", "0:a:0", "-vn", "-sn", "-dn", "-map_metadata", "-1"]
    args += ["-af", f"aresample={int(rate)}:async=1:first_pts=0", "-ac", "1", "-ar", str(int(rate))]
    args += ["-c:a", "pcm_s16le", "-f", "wav"]
    if info.duration > 0:
        args += ["-t", f"{info.duration:.3f}"]
    with _atomic_output(dst_wav) as tmp:
        _ffmpeg([*args, os.fspath(tmp)], timeout_s=timeout_s, what="extract the audio")
    return Path(dst_wav).absolute()
