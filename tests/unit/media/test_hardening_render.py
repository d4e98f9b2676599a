"""Security review, uploaded video: outputs that render a picture (``burned_video``, ``all``, dubbing)
are refused at submission, as ``UNSUPPORTED_VIDEO``, for an upload without a video stream or with a
picture too small to render; subtitle files alone need no picture.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from core.errors import ApiError, ErrorKind
from engines.media.ffmpeg import burn_subtitles
from engines.media.probe import MIN_RENDER_SIZE, probe
from serve_app.schemas.video import VideoTranslateParams
from serve_app.video_submit import check_upload
from tests.support.media import make_video

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs ffmpeg")


def _ffmpeg(*args: str) -> None:
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *args], check=True, capture_output=True, timeout=120)


# --------------------------------------------------------------------- 3. outputs that need a picture


@pytest.fixture(scope="module")
def audio_only_m4a(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("m4a") / "tone.m4a"
    _ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac", str(path))
    return path


@pytest.fixture(scope="module")
def one_pixel_mp4(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pixel") / "pixel.mp4"
    _ffmpeg(
        "-f", "lavfi", "-i", "color=c=blue:size=2x2:rate=10:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
        "-vf", "scale=1:1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p", "-c:a", "aac",
        "-shortest", str(path),
    )  # fmt: skip
    return path


def _params(**fields: object) -> VideoTranslateParams:
    return VideoTranslateParams.model_validate({"target_lang": "es", **fields})


def _refusal(path: Path, **fields: object) -> ApiError:
    with pytest.raises(ApiError) as caught:
        check_upload(probe(path), _params(**fields))
    assert caught.value.kind is ErrorKind.UNSUPPORTED_VIDEO
    return caught.value


def test_burning_an_audio_only_upload_is_refused(audio_only_m4a: Path) -> None:
    assert probe(audio_only_m4a).video is None
    assert (
        "burned_video needs a video stream; this upload has none"
        in _refusal(audio_only_m4a, output_format="burned_video").message
    )
    assert "video stream" in _refusal(audio_only_m4a, output_format="all").message


def test_dubbing_an_audio_only_upload_is_refused(audio_only_m4a: Path) -> None:
    assert "dubbing needs a video stream" in _refusal(audio_only_m4a, enable_dubbing="true").message


def test_a_one_pixel_video_is_refused_for_rendered_outputs(one_pixel_mp4: Path) -> None:
    info = probe(one_pixel_mp4)
    assert info.video is not None and (info.video.width, info.video.height) == (1, 1)
    w, h = MIN_RENDER_SIZE
    message = _refusal(one_pixel_mp4, output_format="all").message
    assert "1×1 pixels" in message and f"at least {w}×{h}" in message
    _refusal(one_pixel_mp4, output_format="burned_video")
    _refusal(one_pixel_mp4, output_format="srt", enable_dubbing="true")


def test_subtitle_files_need_no_picture(audio_only_m4a: Path, one_pixel_mp4: Path) -> None:
    check_upload(probe(audio_only_m4a), _params(output_format="srt"))
    check_upload(probe(one_pixel_mp4), _params(output_format="vtt"))


def test_the_smallest_accepted_size_burns(tmp_path: Path) -> None:
    w, h = MIN_RENDER_SIZE
    src = make_video(tmp_path / "small.mp4", container="mp4", duration=1.0, size=(w, h))
    check_upload(probe(src), _params(output_format="burned_video"))
    ass = tmp_path / "cues.ass"
    ass.write_text(
        "[Script Info]\nScriptType: v4.00+\n\n[Events]\n"
        "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
        "Dialogue: 0,0:00:00.00,0:00:01.00,Default,,0,0,0,,Hi\n",
        encoding="utf-8",
    )
    assert burn_subtitles(src, ass, tmp_path / "out.mp4", timeout_s=60).stat().st_size > 0
