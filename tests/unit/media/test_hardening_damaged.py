"""Security review, uploaded video: damaged media is ``UNSUPPORTED_VIDEO``, whether the upload probe
or the worker's audio extraction finds the damage (never ``INVALID_PARAMETER`` or ``INTERNAL_ERROR``).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from core.errors import ErrorKind, kind_of, task_error
from engines.errors import UnsupportedMedia
from engines.media.ffmpeg import extract_audio
from engines.media.probe import probe, validate
from tests.support.media import make_video
from tests.unit.media.test_hardening_duration import find_box

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs ffmpeg")


# --------------------------------------------------------------------- 2. damaged files


@pytest.fixture(scope="module")
def tone_mp4(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("tone") / "tone.mp4", container="mp4", duration=3.0, size=(160, 120))


def _scrambled(data: bytes, start: int, end: int, seed: int = 1234) -> bytes:
    noise = random.Random(seed).randbytes(end - start)
    return data[:start] + noise + data[end:]


def test_a_file_scrambled_after_its_header_is_unsupported_video(tone_mp4: Path, tmp_path: Path) -> None:
    data = tone_mp4.read_bytes()
    bad = tmp_path / "scrambled.mp4"
    bad.write_bytes(_scrambled(data, 64, len(data)))
    with pytest.raises(UnsupportedMedia) as caught:
        validate(probe(bad))
    assert kind_of(caught.value) is ErrorKind.UNSUPPORTED_VIDEO
    assert task_error(caught.value)["code"] == "UNSUPPORTED_VIDEO"


@pytest.mark.parametrize("seed", [0, 1, 4, 8])
def test_damaged_samples_behind_an_intact_index_are_unsupported_video(tone_mp4: Path, tmp_path: Path, seed: int) -> None:
    """The upload probe passes (the ``moov`` index is intact); the worker's extraction finds the data broken."""
    data = tone_mp4.read_bytes()
    off, header, size = find_box(data, "mdat")
    bad = tmp_path / "damaged.mp4"
    bad.write_bytes(_scrambled(data, off + header, off + size, seed))
    validate(probe(bad))
    with pytest.raises(UnsupportedMedia) as caught:
        extract_audio(bad, tmp_path / "out.wav", timeout_s=60)
    assert task_error(caught.value)["code"] == "UNSUPPORTED_VIDEO"
    assert not (tmp_path / "out.wav").exists()
