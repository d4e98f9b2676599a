"""burn_subtitles() on a real video, in a folder whose name needs every kind of escaping.

Frames of the source and of the burned output are decoded whole and compared
by index (timestamps are kept, so frame ``k`` is the same moment in both):
where a cue is shown they differ in the cue's area, elsewhere only by the
re-encoding noise.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from engines.errors import EngineFailure
from engines.media.ffmpeg import burn_subtitles, resolve_font
from engines.media.probe import probe, validate
from tests.support.media import make_video, not_a_video

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs ffmpeg")

FPS = 15
SECONDS = 4.0
#: "PingFang SC" is the product's default font and is not installed here: libass must fall back.
ASS = """[Script Info]
ScriptType: v4.00+
PlayResX: 320
PlayResY: 240
WrapStyle: 0

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, \
StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,PingFang SC,44,&H00FFFFFF,&H00FFFFFF,&H00000000,&H00000000,1,0,0,0,100,100,0,0,1,2,0,2,10,10,20,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:00.50,0:00:02.50,Default,,0,0,0,,\u2588\u2588\u2588\u2588\u2588
Dialogue: 0,0:00:02.60,0:00:03.10,Default,,0,0,0,,你好世界
Dialogue: 0,0:00:03.10,0:00:03.60,Default,,0,0,0,,一二三四
"""
# Frame indexes (t * FPS) well inside each span.
NO_CUE = (3, 58)  # 0.2 s, 3.87 s
BLOCKS = 22  # 1.47 s
HELLO_WORLD = 42  # 2.8 s
ONE_TO_FOUR = 50  # 3.33 s
#: Subtitles sit at the bottom (alignment 2, margin 20).
TEXT_ROWS = slice(150, 240)


def gray_frames(path: Path) -> np.ndarray:
    """Every decoded frame as 8-bit luma, shape (frames, 240, 320)."""
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "gray", "-"]
    raw = subprocess.run(cmd, capture_output=True, check=True, timeout=120).stdout
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, 240, 320)


def text_mask(source: np.ndarray, burned: np.ndarray) -> np.ndarray:
    """Pixels the subtitles changed clearly (re-encoding noise stays below the threshold)."""
    return np.abs(burned.astype(np.int16) - source.astype(np.int16)) > 48


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("burn") / "my clips: it's [v1], final; ok"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def burned(workdir: Path) -> tuple[Path, Path]:
    source = make_video(workdir / "source clip.mp4", container="mp4", duration=SECONDS, fps=FPS)
    ass = workdir / "subs: 'zh'.ass"
    ass.write_text(ASS, encoding="utf-8")
    out = burn_subtitles(source, ass, workdir / "out put.mp4", timeout_s=120, threads=2)
    return source, out


@pytest.fixture(scope="module")
def frames(burned: tuple[Path, Path]) -> tuple[np.ndarray, np.ndarray]:
    source, out = burned
    return gray_frames(source), gray_frames(out)


def test_output_is_h264_aac_mp4_of_the_same_length(burned: tuple[Path, Path], workdir: Path) -> None:
    source, out = burned
    before, after = probe(source), probe(out)
    assert after.container == "mp4"
    assert after.video is not None and after.audio is not None
    assert (after.video.codec, after.audio.codec) == ("h264", "aac")
    assert (after.video.width, after.video.height, after.video.fps) == (320, 240, pytest.approx(FPS))
    assert after.duration == pytest.approx(before.duration, abs=0.1)
    validate(after)
    assert sorted(p.name for p in workdir.iterdir()) == ["out put.mp4", "source clip.mp4", "subs: 'zh'.ass"]


def test_moov_atom_is_up_front(burned: tuple[Path, Path]) -> None:
    head = burned[1].read_bytes()[: 64 * 1024]
    assert 0 <= head.find(b"moov") < head.find(b"mdat")


def test_every_frame_is_kept(frames: tuple[np.ndarray, np.ndarray]) -> None:
    source, out = frames
    assert source.shape == out.shape == (int(SECONDS * FPS), 240, 320)


def test_cues_appear_on_exactly_their_frames(frames: tuple[np.ndarray, np.ndarray]) -> None:
    source, out = frames
    shown = [k for k in range(len(source)) if text_mask(source[k], out[k]).sum() > 300]
    # frame k is at k/15 s; cues span [0.5, 2.5) and [2.6, 3.6) s
    assert shown == [*range(8, 38), *range(39, 54)]


def test_frames_without_a_cue_are_unchanged(frames: tuple[np.ndarray, np.ndarray]) -> None:
    source, out = frames
    for k in NO_CUE:
        diff = np.abs(out[k].astype(np.int16) - source[k].astype(np.int16))
        assert diff.mean() < 3.0, f"frame {k}"
        assert text_mask(source[k], out[k]).sum() < 50, f"frame {k}"


def test_cue_is_drawn_at_the_bottom(frames: tuple[np.ndarray, np.ndarray]) -> None:
    source, out = frames
    mask = text_mask(source[BLOCKS], out[BLOCKS])
    assert mask[TEXT_ROWS].sum() > 3000  # five 44 px blocks
    assert mask[:100].sum() < 20  # nothing above it: isolated noise pixels at most
    assert np.median(out[BLOCKS][mask]) > 200  # white text


def test_chinese_renders_as_glyphs_not_boxes(frames: tuple[np.ndarray, np.ndarray]) -> None:
    source, out = frames
    hello = text_mask(source[HELLO_WORLD], out[HELLO_WORLD])
    numbers = text_mask(source[ONE_TO_FOUR], out[ONE_TO_FOUR])
    assert hello[TEXT_ROWS].sum() > 500 and numbers[TEXT_ROWS].sum() > 300
    # four missing-glyph boxes would look the same whatever the characters; real glyphs do not
    overlap = (hello & numbers).sum() / (hello | numbers).sum()
    assert overlap < 0.5
    # 一二三四 is mostly horizontal strokes: far fewer inked pixels than 你好世界
    assert numbers.sum() < 0.85 * hello.sum()


def test_odd_sized_silent_video_is_burned_to_even_size_without_audio(tmp_path: Path) -> None:
    source = make_video(tmp_path / "odd.avi", container="avi", size=(161, 121), duration=1.0, audio=False)
    ass = tmp_path / "a.ass"
    ass.write_text(ASS, encoding="utf-8")
    info = probe(burn_subtitles(source, ass, tmp_path / "even.mp4", timeout_s=60))
    assert info.video is not None and (info.video.codec, info.video.width, info.video.height) == ("h264", 160, 120)
    assert info.audio is None


def test_unreadable_source_is_engine_failure(workdir: Path, tmp_path: Path) -> None:
    ass = tmp_path / "a.ass"
    ass.write_text(ASS, encoding="utf-8")
    with pytest.raises(EngineFailure, match="Invalid data"):
        burn_subtitles(not_a_video(tmp_path / "x.mp4"), ass, tmp_path / "out.mp4", timeout_s=60)
    assert not (tmp_path / "out.mp4").exists()
    assert not list(tmp_path.glob(".*part"))


def test_resolve_font_falls_back_to_installed_noto_cjk() -> None:
    if shutil.which("fc-list") is None:
        pytest.skip("fontconfig tools not installed")
    fallback = resolve_font("PingFang SC")
    assert fallback.startswith("Noto Sans CJK")
    listed = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True, check=True, timeout=30).stdout
    assert fallback in listed  # the fallback really is installed here
    assert resolve_font("DejaVu Sans") == "DejaVu Sans"
