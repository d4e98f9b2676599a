"""Error mapping, argument checks and font choice, without running ffmpeg."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from engines.errors import EngineFailure, EngineTimeout, EngineUnavailable, InvalidInput, UnsupportedMedia
from engines.media import ffmpeg, probe


def test_missing_binary_is_engine_unavailable() -> None:
    with pytest.raises(EngineUnavailable, match="not installed") as caught:
        ffmpeg.run_tool(["/nonexistent/ffmpeg", "-version"], timeout_s=5, what="check")
    assert isinstance(caught.value.__cause__, FileNotFoundError)
    assert not isinstance(caught.value, EngineTimeout)


def test_deadline_is_engine_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(cmd: list[str], **kwargs: object) -> None:
        raise subprocess.TimeoutExpired(cmd, kwargs["timeout"])  # type: ignore[arg-type]

    monkeypatch.setattr(subprocess, "run", slow)
    with pytest.raises(EngineTimeout, match=r"did not burn subtitles within 1\.5s") as caught:
        ffmpeg.run_tool(["ffmpeg"], timeout_s=1.5, what="burn subtitles")
    assert isinstance(caught.value.__cause__, subprocess.TimeoutExpired)


def test_extract_audio_without_ffmpeg_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "in.mp4"
    src.write_bytes(b"x")
    monkeypatch.setattr(ffmpeg, "FFMPEG", str(tmp_path / "no-ffmpeg"))
    with pytest.raises(EngineUnavailable):
        ffmpeg.extract_audio(src, tmp_path / "out.wav", timeout_s=5)
    assert list(tmp_path.iterdir()) == [src]  # no partial output left behind


def test_probe_without_ffprobe_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "in.mp4"
    src.write_bytes(b"x")
    monkeypatch.setattr(probe, "FFPROBE", str(tmp_path / "no-ffprobe"))
    with pytest.raises(EngineUnavailable):
        probe.probe(src)


def test_probe_of_a_missing_file_is_unsupported(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedMedia, match="not found"):
        probe.probe(tmp_path / "absent.mp4")


@pytest.mark.parametrize(("start", "end"), [(-1.0, None), (5.0, 5.0), (5.0, 2.0), (None, 0.0)])
def test_extract_audio_refuses_bad_ranges(tmp_path: Path, start: float | None, end: float | None) -> None:
    src = tmp_path / "in.mp4"
    src.write_bytes(b"x")
    with pytest.raises(InvalidInput):
        ffmpeg.extract_audio(src, tmp_path / "out.wav", start=start, end=end, timeout_s=5)


def test_burn_without_ass_file_is_engine_failure(tmp_path: Path) -> None:
    src = tmp_path / "in.mp4"
    src.write_bytes(b"x")
    with pytest.raises(EngineFailure, match="subtitle file not found"):
        ffmpeg.burn_subtitles(src, tmp_path / "absent.ass", tmp_path / "out.mp4", timeout_s=5)


def _finished(returncode: int, stderr: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.CompletedProcess(["ffmpeg"], returncode, b"", stderr)


def test_check_exit_passes_success_quietly() -> None:
    ffmpeg.check_exit(_finished(0, b"warnings only"), ["ffmpeg", "-i", "x"], what="extract audio")


def test_check_exit_signal_is_engine_unavailable() -> None:
    with pytest.raises(EngineUnavailable, match="stopped by signal 9 while trying to extract audio") as caught:
        ffmpeg.check_exit(_finished(-9), ["ffmpeg"], what="extract audio")
    assert not isinstance(caught.value, EngineFailure)


def test_check_exit_non_zero_is_engine_failure_with_stderr_tail() -> None:
    cmd = ["ffmpeg", "-i", "in.mp4"]
    with pytest.raises(EngineFailure, match=r"could not burn subtitles \(exit 1\): bad \| worse") as caught:
        ffmpeg.check_exit(_finished(1, b"bad\nworse\n"), cmd, what="burn subtitles")
    cause = caught.value.__cause__
    assert isinstance(cause, subprocess.CalledProcessError)
    assert (cause.returncode, cause.cmd, cause.stderr) == (1, cmd, b"bad\nworse\n")


def test_stderr_tail_keeps_the_last_lines() -> None:
    stderr = b"\n".join(f"line {i}".encode() for i in range(10)) + b"\n\n"
    assert ffmpeg.stderr_tail(stderr, 2) == "line 8 | line 9"
    assert ffmpeg.stderr_tail(b"") == "no error output"


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    families = frozenset({"dejavu sans", "noto sans cjk sc", "noto sans cjk jp", "my brand font"})
    monkeypatch.setattr(ffmpeg, "_families", lambda dirs: families | ({"bundled"} if dirs else set()))


@pytest.mark.usefixtures("installed")
@pytest.mark.parametrize(
    ("family", "lang", "expected"),
    [
        ("DejaVu Sans", None, "DejaVu Sans"),
        ("dejavu sans ", None, "dejavu sans"),  # fontconfig matches families case-insensitively
        ("PingFang SC", None, "Noto Sans CJK SC"),
        ("PingFang SC", "ja", "Noto Sans CJK JP"),
        ("Hiragino Sans", "ko", "Noto Sans CJK KR"),
        ("PingFang TC", "zh-TW", "Noto Sans CJK TC"),
        ("PingFang SC", "ja-JP", "Noto Sans CJK JP"),
        ("PingFang SC", "zh-CN", "Noto Sans CJK SC"),
        ("", None, "Noto Sans CJK SC"),
    ],
)
def test_resolve_font(family: str, lang: str | None, expected: str) -> None:
    assert ffmpeg.resolve_font(family, lang=lang) == expected


@pytest.mark.usefixtures("installed")
def test_resolve_font_looks_into_fonts_dir(tmp_path: Path) -> None:
    assert ffmpeg.resolve_font("Bundled") == "Noto Sans CJK SC"
    assert ffmpeg.resolve_font("Bundled", fonts_dir=tmp_path) == "Bundled"


def test_resolve_font_without_fontconfig_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(cmd: list[str], **kwargs: object) -> None:
        raise FileNotFoundError(cmd[0])

    ffmpeg._families.cache_clear()
    monkeypatch.setattr(subprocess, "run", missing)
    try:
        assert ffmpeg.resolve_font("DejaVu Sans") == "Noto Sans CJK SC"
    finally:
        ffmpeg._families.cache_clear()
