"""probe() + validate() on real files of every accepted variant, and on files to refuse."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from engines.errors import EngineFailure, MediaTooLarge, NoAudioTrack, UnsupportedMedia
from engines.media.ffmpeg import extract_audio
from engines.media.probe import probe, validate
from tests.support.media import VARIANTS, Variant, make_video, not_a_video, silent_video

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None, reason="needs ffmpeg")

SECONDS = 3.0


@pytest.fixture(scope="module")
def variant_video(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Variant], Path]:
    """``variant_video(v)`` -> a 3 s tone video of that variant, under a misleading extension.

    The extension is never the container's (MP4 is written as ``.mov``, the
    rest as ``.mp4``), so probing has to judge the content.
    """
    folder = tmp_path_factory.mktemp("variants")
    cache: dict[Variant, Path] = {}

    def build(variant: Variant) -> Path:
        if variant not in cache:
            wrong = "mov" if variant.container == "mp4" else "mp4"
            path = folder / f"{variant.id}.{wrong}"
            cache[variant] = make_video(path, container=variant.container, codec=variant.codec, duration=SECONDS)
        return cache[variant]

    return build


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.id for v in VARIANTS])
def test_every_variant_probes_and_is_accepted(variant: Variant, variant_video: Callable[[Variant], Path]) -> None:
    info = probe(variant_video(variant))
    assert info.container == variant.container
    assert info.video is not None and info.audio is not None
    assert (info.video.codec, info.audio.codec) == (variant.video_codec, variant.audio_codec)
    assert (info.video.width, info.video.height) == (320, 240)
    assert info.video.fps == pytest.approx(15.0)
    assert info.audio.channels == 2 and info.audio.sample_rate > 0
    assert (info.audio.index, info.audio_streams) == (1, 1)
    assert info.duration == pytest.approx(SECONDS, abs=0.15)
    assert info.size_bytes == variant_video(variant).stat().st_size
    validate(info)


def test_upload_name_is_a_hint_for_brandless_families(variant_video: Callable[[Variant], Path]) -> None:
    mkv = variant_video(VARIANTS[3])
    assert probe(mkv).container == "mkv"
    assert probe(mkv, filename_hint="upload.webm").container == "mkv"  # H.264 is never WebM
    webm = variant_video(VARIANTS[5])
    assert probe(webm, filename_hint="upload.mkv").container == "mkv"
    assert probe(webm, filename_hint="upload.webm").container == "webm"


def test_limits(variant_video: Callable[[Variant], Path]) -> None:
    info = probe(variant_video(VARIANTS[0]))
    with pytest.raises(MediaTooLarge, match="duration"):
        validate(info, max_duration_s=2)
    with pytest.raises(MediaTooLarge, match="bytes limit"):
        validate(info, max_bytes=info.size_bytes - 1)
    validate(info, max_duration_s=SECONDS + 0.2, max_bytes=info.size_bytes)


def test_silent_video_has_no_audio_track(tmp_path: Path) -> None:
    info = probe(silent_video(tmp_path / "silent.mkv", container="mkv"))
    assert info.video is not None and info.audio is None and info.audio_streams == 0
    with pytest.raises(NoAudioTrack):
        validate(info)


@pytest.mark.parametrize("name", ["notes.txt", "movie.mp4"])
def test_text_file_is_unsupported(tmp_path: Path, name: str) -> None:
    with pytest.raises(UnsupportedMedia, match=r"could not be read as a video \(Invalid data") as caught:
        probe(not_a_video(tmp_path / name))
    assert str(tmp_path) not in str(caught.value)  # the message reaches clients: no server paths
    assert isinstance(caught.value.__cause__, subprocess.CalledProcessError)


def test_truncated_video_is_unsupported(tmp_path: Path, variant_video: Callable[[Variant], Path]) -> None:
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(variant_video(VARIANTS[0]).read_bytes()[:2048])  # faststart-less MP4: the index is at the end
    with pytest.raises(UnsupportedMedia):
        probe(broken)


@pytest.mark.parametrize(("name", "frames"), [("still.png", 1), ("anim.gif", 5)])
def test_images_are_unsupported(tmp_path: Path, name: str, frames: int) -> None:
    path = tmp_path / name
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10", "-frames:v", str(frames)]
    subprocess.run([*cmd, str(path)], check=True, timeout=60)
    with pytest.raises(UnsupportedMedia, match="Not an accepted video format") as caught:
        probe(path)  # no image demuxer may even open it
    assert b"not on whitelist" in caught.value.__cause__.stderr


def test_a_playlist_disguised_as_a_video_never_opens_what_it_names(tmp_path: Path) -> None:
    """An HLS playlist uploaded as .mp4 could make ffmpeg read another file on the server (another
    customer's upload) as this task's media; only local files of the video demuxers may be opened."""
    secret = make_video(tmp_path / "other-tenant.mp4", container="mp4")
    segment = tmp_path / "seg.ts"
    remux = ["ffmpeg", "-nostdin", "-v", "error", "-i", str(secret), "-c", "copy", "-f", "mpegts", str(segment)]
    subprocess.run(remux, check=True)
    playlist = tmp_path / "trap.mp4"
    playlist.write_text(f"#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:5,\n{segment}\n#EXT-X-ENDLIST\n")
    with pytest.raises(UnsupportedMedia, match="Not an accepted video format"):
        probe(playlist)
    with pytest.raises(EngineFailure, match="not on whitelist"):
        extract_audio(playlist, tmp_path / "a.wav", timeout_s=60)
