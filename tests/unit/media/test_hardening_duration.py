"""Security review, uploaded video: a container that understates its duration is charged for that duration,
and nothing past it is recognized or rendered (the stream itself lasts five times longer).

The test file is a 10 s tone whose ``mvhd``/``tkhd``/``mdhd`` durations are patched to 2 s.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import wave
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from core.specs.video import UploadSource, VideoJobSpec
from engines.media.ffmpeg import burn_subtitles, extract_audio
from engines.media.probe import probe, validate
from pipelines.progress import Progress
from pipelines.video_translation import PipelineDeps, translate_video
from tests.support.media import make_video

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs ffmpeg")


REAL_S, STATED_S = 10.0, 2.0
MARGIN_S = 0.1


# --------------------------------------------------------------------- mp4 boxes


def _boxes(data: bytes | bytearray, start: int, end: int) -> Iterator[tuple[str, int, int, int]]:
    """(type, offset, header size, total size) of each box in ``data[start:end]``."""
    off = start
    while off + 8 <= end:
        size, kind = struct.unpack(">I4s", data[off : off + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[off + 8 : off + 16])[0], 16
        elif size == 0:
            size = end - off
        yield kind.decode("latin-1"), off, header, size
        off += size


def find_box(data: bytes | bytearray, kind: str) -> tuple[int, int, int]:
    return next((off, header, size) for name, off, header, size in _boxes(data, 0, len(data)) if name == kind)


def state_duration(path: Path, seconds: float) -> None:
    """Overwrite the durations of ``mvhd``, every ``tkhd`` and ``mdhd`` with ``seconds``; the samples stay."""
    data = bytearray(path.read_bytes())
    moov, header, size = find_box(data, "moov")
    movie_scale = 0

    def patch(body: int, version: int, skip_v0: int, skip_v1: int, scale: int) -> None:
        # Duration follows ``skip`` bytes of fields after the version/flags word; 32-bit in v0, 64-bit in v1.
        if version == 0:
            struct.pack_into(">I", data, body + 4 + skip_v0, round(seconds * scale))
        else:
            struct.pack_into(">Q", data, body + 4 + skip_v1, round(seconds * scale))

    def walk(start: int, end: int) -> None:
        nonlocal movie_scale
        for name, off, head, box_size in _boxes(data, start, end):
            body = off + head
            version = data[body]
            if name in ("moov", "trak", "mdia"):
                walk(body, off + box_size)
            elif name == "mvhd":
                movie_scale = struct.unpack_from(">I", data, body + 4 + (8 if version == 0 else 16))[0]
                patch(body, version, 12, 20, movie_scale)
            elif name == "tkhd":  # creation, modification, track id, reserved, then duration (movie time scale)
                patch(body, version, 16, 24, movie_scale)
            elif name == "mdhd":  # creation, modification, time scale, then duration (its own time scale)
                media_scale = struct.unpack_from(">I", data, body + 4 + (8 if version == 0 else 16))[0]
                patch(body, version, 12, 20, media_scale)

    walk(moov + header, moov + size)
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def lying_mp4(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 10 s H.264/AAC tone whose container says it lasts 2 s."""
    path = make_video(tmp_path_factory.mktemp("lying") / "lying.mp4", container="mp4", duration=REAL_S, size=(160, 120))
    state_duration(path, STATED_S)
    return path


def _wav_seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as wav:
        return wav.getnframes() / wav.getframerate()


def _media_seconds(path: Path) -> float:
    """The last packet's end, read from the packets (not from any duration field)."""
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", str(path)],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    ends = [float(a) + float(b or 0) for a, b in (line.split(",")[:2] for line in out.split() if "," in line)]
    return max(ends)


# --------------------------------------------------------------------- 1. the charged duration


def test_the_patched_file_states_two_seconds_but_holds_ten(lying_mp4: Path) -> None:
    info = probe(lying_mp4)
    validate(info)
    assert info.duration == pytest.approx(STATED_S, abs=0.05)
    assert _media_seconds(lying_mp4) == pytest.approx(REAL_S, abs=0.2)


class _Stop(Exception):
    """Ends the pipeline once the audio reached recognition."""


async def test_the_pipeline_recognizes_no_audio_past_the_probed_duration(lying_mp4: Path, tmp_path: Path) -> None:
    heard: list[float] = []
    admitted: list[float] = []

    async def obtain(source: object, workdir: Path) -> Path:
        return lying_mp4

    async def admit(info: object) -> None:
        admitted.append(info.duration)  # type: ignore[attr-defined]

    async def transcribe(audio: np.ndarray, language: str, offset: float, report: object, **kw: object) -> None:
        heard.append(audio.size / 16_000)
        raise _Stop

    async def unused(*args: object) -> None:
        raise AssertionError("not reached")

    async def pairs() -> frozenset[tuple[str, str]]:
        return frozenset({("en", "es")})

    deps = PipelineDeps(
        obtain=obtain, admit=admit, detect_language=unused, transcribe=transcribe,  # type: ignore[arg-type]
        translate=unused, pairs=pairs, publish=unused, timeout_s=60,  # type: ignore[arg-type]
    )  # fmt: skip

    async def sink(stage: str, percent: int, remaining: int) -> None:
        pass

    spec = VideoJobSpec(source=UploadSource(key=str(lying_mp4)), target_lang="es", source_lang="en", subtitle_preset="legacy")
    with pytest.raises(_Stop):
        await translate_video(spec, deps, Progress(sink), tmp_path)
    assert admitted == [pytest.approx(STATED_S, abs=0.05)]  # what is charged
    assert heard and heard[0] <= admitted[0] + MARGIN_S  # is all that is recognized


def test_the_burned_video_stops_at_the_probed_duration(lying_mp4: Path, tmp_path: Path) -> None:
    ass = tmp_path / "cues.ass"
    ass.write_text(
        "[Script Info]\nScriptType: v4.00+\nPlayResX: 160\nPlayResY: 120\n\n[Events]\n"
        "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
        "Dialogue: 0,0:00:00.00,0:00:01.00,Default,,0,0,0,,Hi\n",
        encoding="utf-8",
    )
    stated = probe(lying_mp4).duration  # what the submission probed and charged
    out = burn_subtitles(lying_mp4, ass, tmp_path / "burned.mp4", timeout_s=120, duration=stated)
    assert _media_seconds(out) <= STATED_S + MARGIN_S


def test_a_ranged_extraction_is_unchanged(lying_mp4: Path, tmp_path: Path) -> None:
    wav = extract_audio(lying_mp4, tmp_path / "part.wav", start=0.5, end=1.5, timeout_s=60)
    assert _wav_seconds(wav) == pytest.approx(1.0, abs=0.03)


def test_the_dubbing_track_stops_at_the_probed_duration(lying_mp4: Path, tmp_path: Path) -> None:
    from engines.dubbing.mux import extract_full_audio

    wav = extract_full_audio(lying_mp4, tmp_path / "original.wav", rate=16_000, timeout_s=60)
    assert _wav_seconds(wav) <= STATED_S + MARGIN_S
