"""detect_shot_changes() on real files: every cut on its own frame, nothing inside a shot.

Videos are lavfi shots with moving content, cut together at known frames and
encoded as uploads usually are (x264 veryfast: B-frames, deblocking), at
25 fps in MP4 and at 23.976 fps in Matroska (millisecond timestamps).
"""

from __future__ import annotations

import shutil
import subprocess
from fractions import Fraction
from itertools import accumulate
from pathlib import Path

import pytest

from engines.errors import EngineFailure, EngineTimeout, EngineUnavailable, InvalidInput
from engines.media.scenes import cuts, detect_shot_changes
from tests.support.media import make_video, not_a_video

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None, reason="needs ffmpeg")

#: lavfi chains of visually different shots, all moving; ``{r}`` is the frame rate, ``{i}`` keeps labels apart.
SHOTS = {
    "pattern": "testsrc2=s=320x240:r={r}",
    "bars": "smptebars=s=320x240:r={r}[b{i}];color=yellow:s=40x40:r={r}[y{i}];[b{i}][y{i}]overlay=x='20+t*60':y=120",
    "zoom": "mandelbrot=s=320x240:r={r}",
    # Fixed colours: the random default can come out as dark as the next shot's background.
    "gradients": "gradients=s=320x240:r={r}:speed=0.02:c0=0xff8000:c1=0xffffa0:seed=1",
    "inset": "color=0x203060:s=320x240:r={r}[c{i}];testsrc2=s=120x90:r={r}[p{i}];[c{i}][p{i}]overlay=x='t*50':y='40+t*20'",
    "pan": "testsrc=s=640x480:r={r},crop=320:240:x='t*30':y='t*15'",
    # Every frame differs from the last by ~11 % of full scale: the frame after the cut into it must not count.
    "fast": "sierpinski=s=320x240:r={r}:seed=1",
}
#: (shot, frames): the cut video, cut at frames that fall on no round time.
CUT_LIST = [("pattern", 48), ("bars", 37), ("zoom", 45), ("gradients", 41), ("inset", 50), ("pan", 44), ("fast", 40)]
CUT_LIST += [("pattern", 30)]


def shots_video(path: Path, shots: list[tuple[str, int]], rate: str, muxer: str, extra: str = "") -> list[float]:
    """Write the shots cut together (``extra``: filters after the cut) and return the cut times in seconds."""
    chains = [
        f"{SHOTS[name].format(r=rate, i=k)},trim=end_frame={frames},setpts=PTS-STARTPTS,format=yuv420p,setsar=1[v{k}]"
        for k, (name, frames) in enumerate(shots)
    ]
    graph = ";".join(chains) + ";" + "".join(f"[v{k}]" for k in range(len(shots))) + f"concat=n={len(shots)}{extra}[v]"
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-filter_complex", graph, "-map", "[v]"]
    cmd += ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-f", muxer, str(path)]
    subprocess.run(cmd, check=True, timeout=120)
    return [float(frame / Fraction(rate)) for frame in accumulate(frames for _, frames in shots[:-1])]


@pytest.mark.parametrize(("rate", "muxer"), [("25", "mp4"), ("24000/1001", "matroska")], ids=["25fps-mp4", "23.976fps-mkv"])
def test_every_cut_on_its_own_frame_and_nothing_else(tmp_path: Path, rate: str, muxer: str) -> None:
    video = tmp_path / "cuts.video"
    expected = shots_video(video, CUT_LIST, rate, muxer)
    found = detect_shot_changes(video)
    half_frame = 0.5 / float(Fraction(rate))
    assert len(found) == len(expected), f"found {found}, cuts at {expected}"
    for cut, time in zip(expected, found):
        assert abs(time - cut) < half_frame, f"cut at {cut:.4f} s found at {time:.4f} s"


@pytest.mark.parametrize(
    ("shot", "extra"),
    [
        ("pattern", ""),
        ("pan", ""),
        ("zoom", ""),
        ("fast", ",fps=30"),  # 24 -> 30 fps by repeating frames: fast motion stops and resumes every 5th frame
        ("pattern", ",drawbox=c=white:t=fill:enable='eq(n,40)'"),  # a one-frame flash
    ],
    ids=["pattern", "pan", "zoom", "fast-repeated-frames", "flash"],
)
def test_a_continuous_shot_has_no_cut(tmp_path: Path, shot: str, extra: str) -> None:
    video = tmp_path / "shot.mp4"
    shots_video(video, [(shot, 120)], "24" if extra.startswith(",fps") else "25", "mp4", extra)
    assert detect_shot_changes(video) == ()


def test_files_without_video_have_no_cut(tmp_path: Path) -> None:
    audio = tmp_path / "audio.m4a"
    cover = tmp_path / "cover.png"
    tone = ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=2"]
    subprocess.run([*tone, "-c:a", "aac", "-f", "mp4", str(audio)], check=True, timeout=60)
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "smptebars=s=64x64", "-frames:v", "1", str(cover)], check=True)
    with_cover = tmp_path / "cover.m4a"
    art = ["-i", str(cover), "-map", "0", "-map", "1", "-c:a", "aac", "-c:v", "png", "-disposition:v:0", "attached_pic"]
    subprocess.run([*tone, *art, "-f", "mp4", str(with_cover)], check=True, timeout=60)
    assert detect_shot_changes(audio) == ()
    assert detect_shot_changes(with_cover) == ()  # cover art is not the video


def test_video_index_picks_the_stream(tmp_path: Path) -> None:
    cut = tmp_path / "cut.mp4"
    expected = shots_video(cut, [("bars", 30), ("pattern", 30)], "25", "mp4")
    calm = make_video(tmp_path / "calm.mkv", container="mkv", duration=2.4, audio=False)
    both = tmp_path / "both.mkv"
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-i", str(calm), "-i", str(cut), "-map", "0:v", "-map", "1:v", "-c", "copy"]
    subprocess.run([*cmd, str(both)], check=True, timeout=60)
    assert detect_shot_changes(both) == ()
    assert detect_shot_changes(both, video_index=1) == pytest.approx(tuple(expected), abs=0.002)


@pytest.mark.parametrize("video_index", [None, 0], ids=["ffprobe", "ffmpeg"])
def test_missing_binaries_are_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, video_index: int | None) -> None:
    video = make_video(tmp_path / "v.mp4", container="mp4", audio=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineUnavailable, match="is not installed"):
        detect_shot_changes(video, video_index=video_index)


@pytest.mark.parametrize("video_index", [None, 0], ids=["ffprobe", "ffmpeg"])
def test_deadline_is_engine_timeout(tmp_path: Path, video_index: int | None) -> None:
    video = make_video(tmp_path / "v.mp4", container="mp4", audio=False)
    with pytest.raises(EngineTimeout):
        detect_shot_changes(video, video_index=video_index, timeout_s=0.001)


def test_unreadable_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput):
        detect_shot_changes(tmp_path / "missing.mp4")
    with pytest.raises(EngineFailure, match="Invalid data") as caught:
        detect_shot_changes(not_a_video(tmp_path / "notes.mp4"))
    assert isinstance(caught.value.__cause__, subprocess.CalledProcessError)
    with pytest.raises(ValueError, match="threshold"):
        detect_shot_changes(tmp_path / "notes.mp4", threshold=0)


def test_a_playlist_disguised_as_a_video_is_not_followed(tmp_path: Path) -> None:
    """Only local files of the video demuxers may be opened (see ``untrusted_input``)."""
    segment = tmp_path / "seg.ts"
    shots_video(segment, [("bars", 25), ("pattern", 25)], "25", "mpegts")
    playlist = tmp_path / "trap.mp4"
    playlist.write_text(f"#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:2,\n{segment}\n#EXT-X-ENDLIST\n")
    with pytest.raises(EngineFailure, match="not on whitelist"):
        detect_shot_changes(playlist)
    with pytest.raises(EngineFailure, match="not on whitelist"):
        detect_shot_changes(playlist, video_index=0)


def test_a_cut_must_stand_out_from_the_frames_around_it() -> None:
    def at_25fps(*diffs: float) -> list[tuple[float | None, float]]:
        return [(k / 25, diff) for k, diff in enumerate(diffs)]

    assert cuts(at_25fps(0, 1, 1, 30, 12, 12, 12)) == (0.12,)  # not 0.16, where fast motion starts right after the cut
    assert cuts(at_25fps(0, 12, 12, 0, 12, 0, 12, 12)) == ()  # fast motion around repeated frames
    assert cuts(at_25fps(0, 2, 2, 25, 24, 2, 2)) == ()  # a one-frame flash
    assert cuts(at_25fps(0, 2, 2, 25, 0, 24, 2, 2)) == ()  # a two-frame flash
    assert cuts(at_25fps(0, 1, 1, 30, 1, 1, 28, 1)) == (0.12, 0.24)  # a three-frame shot is a shot
    assert cuts([(0.0, 0.0), (None, 40.0), (0.08, 1.0), (0.12, 1.0), (0.16, 40.0)]) == (0.16,)  # no timestamp; the last frame
