"""validate(): the contract's acceptance rules, on hand-made MediaInfo values."""

from __future__ import annotations

import pytest

from engines.errors import MediaTooLarge, NoAudioTrack, UnsupportedMedia
from engines.media.probe import MAX_BYTES, MAX_DURATION_S, AudioStream, MediaInfo, VideoStream, validate

# The contract's table: container -> (video codecs, audio codecs), in ffprobe's names.
TABLE = {
    "mp4": (("h264", "hevc"), ("aac", "mp3")),
    "mov": (("h264", "prores"), ("aac", "pcm_s16le")),
    "mkv": (("h264", "hevc", "vp9"), ("aac", "opus", "flac")),
    "avi": (("mjpeg", "h264"), ("mp3", "pcm_s16le")),
    "webm": (("vp8", "vp9"), ("opus", "vorbis")),
    "flv": (("h264",), ("aac", "mp3")),
    "wmv": (("wmv1", "wmv2", "wmv3", "vc1"), ("wmav1", "wmav2", "wmapro")),
}


def media(
    container: str = "mp4",
    video: str | None = "h264",
    audio: str | None = "aac",
    *,
    duration: float = 60.0,
    size_bytes: int = 10 * 1024 * 1024,
) -> MediaInfo:
    return MediaInfo(
        container=container,
        format_name=container,
        duration=duration,
        size_bytes=size_bytes,
        video=VideoStream(codec=video, width=320, height=240, fps=25.0) if video else None,
        audio=AudioStream(codec=audio, sample_rate=48000, channels=2, index=1) if audio else None,
        audio_streams=1 if audio else 0,
    )


@pytest.mark.parametrize(
    ("container", "video", "audio"),
    [(c, vc, ac) for c, (vcs, acs) in TABLE.items() for vc in vcs for ac in acs],
)
def test_every_pair_of_the_table_is_accepted(container: str, video: str, audio: str) -> None:
    validate(media(container, video, audio))


@pytest.mark.parametrize(("container", "video", "audio"), [("mov", "hevc", "aac"), ("mp4", "vp9", "opus"),
                                                           ("mkv", "mjpeg", "pcm_s24le"), ("avi", "h264", "aac")])  # fmt: skip
def test_table_codecs_are_accepted_in_any_table_container(container: str, video: str, audio: str) -> None:
    validate(media(container, video, audio))


@pytest.mark.parametrize(
    ("container", "video", "audio", "needle"),
    [
        ("gif", "gif", None, "format (gif)"),
        ("png_pipe", "png", None, "format (png_pipe)"),
        ("tty", "ansi", None, "format (tty)"),  # ffmpeg reads some text files as ANSI art
        ("mpegts", "h264", "aac", "format (mpegts)"),
        ("mp4", "mpeg4", "aac", "video codec 'mpeg4'"),
        ("mkv", "av1", "opus", "video codec 'av1'"),
        ("mp4", "h264", "ac3", "audio codec 'ac3'"),
        ("3gp", "h264", "amr_nb", "format (3gp)"),
    ],
)
def test_outside_the_table_is_unsupported(container: str, video: str, audio: str | None, needle: str) -> None:
    with pytest.raises(UnsupportedMedia, match=needle.replace("(", r"\(").replace(")", r"\)")):
        validate(media(container, video, audio))


def test_nothing_to_play_is_unsupported_not_no_audio() -> None:
    with pytest.raises(UnsupportedMedia, match="no video or audio"):
        validate(media("mkv", None, None))


def test_video_without_audio_is_no_audio_track() -> None:
    with pytest.raises(NoAudioTrack, match="no audio track"):
        validate(media("webm", "vp9", None))


def test_format_is_judged_before_the_missing_audio() -> None:
    with pytest.raises(UnsupportedMedia):
        validate(media("gif", "gif", None))


def test_audio_only_is_accepted_unless_video_is_required() -> None:
    validate(media("mp4", None, "aac"))
    with pytest.raises(UnsupportedMedia, match="no video stream"):
        validate(media("mp4", None, "aac"), require_video=True)


def test_default_limits_are_the_contract() -> None:
    assert MAX_DURATION_S == 3 * 3600
    assert MAX_BYTES == 500 * 1024 * 1024
    validate(media(duration=MAX_DURATION_S, size_bytes=MAX_BYTES))  # exactly at the limits is fine


def test_too_long() -> None:
    with pytest.raises(MediaTooLarge, match="3:00:01 is over the 3:00:00 limit"):
        validate(media(duration=MAX_DURATION_S + 1))
    with pytest.raises(MediaTooLarge, match=r"2\.5 s is over the 2\.0 s limit"):
        validate(media(duration=2.5), max_duration_s=2)


def test_too_big() -> None:
    with pytest.raises(MediaTooLarge, match=r"500\.0 MB limit"):
        validate(media(size_bytes=MAX_BYTES + 1))
    with pytest.raises(MediaTooLarge, match="over the 1000 bytes limit"):
        validate(media(size_bytes=1001), max_bytes=1000)


def test_unknown_duration_is_refused_because_the_limit_cannot_be_checked() -> None:
    with pytest.raises(UnsupportedMedia, match="duration"):
        validate(media(duration=0.0))
