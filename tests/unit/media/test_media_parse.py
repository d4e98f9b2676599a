"""ffprobe JSON → MediaInfo: container names from content, first audio stream, robust numbers."""

from __future__ import annotations

from typing import Any

import pytest

from engines.media.probe import AudioStream, VideoStream, normalize_container, parse

MOV_FAMILY = "mov,mp4,m4a,3gp,3g2,mj2"


def v(codec: str, index: int = 0, **extra: Any) -> dict[str, Any]:
    return {"index": index, "codec_type": "video", "codec_name": codec, "width": 320, "height": 240,
            "avg_frame_rate": "15/1", "r_frame_rate": "15/1", **extra}  # fmt: skip


def a(codec: str, index: int = 1, **extra: Any) -> dict[str, Any]:
    return {"index": index, "codec_type": "audio", "codec_name": codec, "sample_rate": "48000", "channels": 2, **extra}


def probe_json(format_name: str, *streams: dict[str, Any], duration: str | None = "3.0", **tags: str) -> dict[str, Any]:
    fmt: dict[str, Any] = {"format_name": format_name, "size": "12345", "tags": tags}
    if duration is not None:
        fmt["duration"] = duration
    return {"format": fmt, "streams": list(streams)}


@pytest.mark.parametrize(
    ("brand", "hint", "codecs", "expected"),
    [
        ("qt  ", "clip.mp4", ["h264", "aac"], "mov"),  # the brand wins over a wrong extension
        ("isom", "clip.mov", ["h264", "aac"], "mp4"),
        ("mp42", None, ["hevc", "aac"], "mp4"),
        ("M4V ", None, ["h264", "aac"], "mp4"),
        ("3gp4", "clip.mp4", ["h264", "aac"], "3gp"),
        ("", "clip.MOV", ["h264", "aac"], "mov"),  # old QuickTime files have no ftyp: the extension decides
        ("", "clip.mp4", ["h264", "aac"], "mp4"),
        ("", None, ["prores", "pcm_s16le"], "mov"),  # no hint at all: QuickTime-only codecs decide
        ("", "upload.bin", ["h264", "pcm_s24le"], "mov"),
        ("", None, ["h264", "aac"], "mp4"),
    ],
)
def test_mp4_and_mov_share_a_demuxer(brand: str, hint: str | None, codecs: list[str], expected: str) -> None:
    assert normalize_container(MOV_FAMILY, codecs=codecs, major_brand=brand, filename_hint=hint) == expected


@pytest.mark.parametrize(
    ("hint", "codecs", "expected"),
    [
        ("a.webm", ["vp9", "opus"], "webm"),
        ("a.mkv", ["vp9", "opus"], "mkv"),
        (None, ["vp8", "vorbis"], "webm"),
        (None, ["h264", "opus"], "mkv"),
        ("a.webm", ["h264", "aac"], "mkv"),  # H.264 cannot be WebM whatever the name says
        ("a.mp4", ["hevc", "flac"], "mkv"),  # content over extension
    ],
)
def test_matroska_or_webm(hint: str | None, codecs: list[str], expected: str) -> None:
    assert normalize_container("matroska,webm", codecs=codecs, filename_hint=hint) == expected


@pytest.mark.parametrize(
    ("format_name", "expected"),
    [("asf", "wmv"), ("avi", "avi"), ("flv", "flv"), ("gif", "gif"), ("png_pipe", "png_pipe"), ("mp3", "mp3")],
)
def test_other_formats(format_name: str, expected: str) -> None:
    # a copied major_brand tag (ffmpeg keeps metadata across remuxes) must not matter here
    assert normalize_container(format_name, codecs=["h264"], major_brand="isom", filename_hint="x.mov") == expected


def test_parse_reads_streams_and_format() -> None:
    info = parse(probe_json(MOV_FAMILY, v("h264"), a("aac"), major_brand="isom"), filename_hint="x.mov")
    assert info.container == "mp4"
    assert info.format_name == MOV_FAMILY
    assert info.duration == pytest.approx(3.0)
    assert info.size_bytes == 12345
    assert info.video == VideoStream(codec="h264", width=320, height=240, fps=15.0)
    assert info.audio == AudioStream(codec="aac", sample_rate=48000, channels=2, index=1)
    assert info.audio_streams == 1


def test_first_audio_stream_is_used_and_all_are_counted() -> None:
    data = probe_json("matroska,webm", v("h264"), {"index": 1, "codec_type": "subtitle", "codec_name": "ass"},
                      a("opus", index=2), a("flac", index=3))  # fmt: skip
    info = parse(data, filename_hint="x.mkv")
    assert info.audio is not None and (info.audio.codec, info.audio.index) == ("opus", 2)
    assert info.audio_streams == 2


def test_cover_art_is_not_video() -> None:
    cover = v("mjpeg", disposition={"attached_pic": 1})
    info = parse(probe_json(MOV_FAMILY, cover, a("aac"), major_brand="M4A "))
    assert info.video is None
    assert info.audio is not None


def test_cover_art_before_the_real_video_is_skipped() -> None:
    info = parse(probe_json(MOV_FAMILY, v("png", disposition={"attached_pic": 1}), v("hevc", index=1), a("aac", index=2)))
    assert info.video is not None and info.video.codec == "hevc"


def test_duration_falls_back_to_streams_and_matroska_tags() -> None:
    tagged = parse(probe_json("matroska,webm", v("vp9", tags={"DURATION": "01:02:03.500000000"}), duration=None))
    assert tagged.duration == pytest.approx(3723.5)
    stream = parse(probe_json("avi", v("mjpeg", duration="4.25"), a("mp3", duration="4.5"), duration="N/A"))
    assert stream.duration == pytest.approx(4.5)
    unknown = parse(probe_json("avi", v("mjpeg"), duration=None))
    assert unknown.duration == 0.0


@pytest.mark.parametrize(("avg", "r", "fps"), [("30000/1001", "30/1", 29.97), ("0/0", "25/1", 25.0), ("0/0", "0/0", 0.0)])
def test_frame_rate_fractions(avg: str, r: str, fps: float) -> None:
    info = parse(probe_json("flv", v("h264", avg_frame_rate=avg, r_frame_rate=r)))
    assert info.video is not None and info.video.fps == pytest.approx(fps, abs=0.01)


def test_missing_fields_do_not_raise() -> None:
    info = parse({"format": {}, "streams": [{"codec_type": "audio"}]}, size_bytes=7)
    assert info.container == ""
    assert info.size_bytes == 7
    assert info.audio == AudioStream(codec="", sample_rate=0, channels=0, index=0)
    assert info.video is None
