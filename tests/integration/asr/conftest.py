"""Real Whisper models and espeak-ng speech for the ASR integration tests.

Models come from ``models/`` when it was assembled there already, otherwise
``cluster/local/assemble_models.py`` assembles them into a temporary folder;
tests skip when the model packages, faster-whisper or espeak-ng are missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "cluster" / "local" / "assemble_models.py"
WHISPER_MODELS = ("whisper-base", "whisper-tiny.en")


def _assembled(root: Path) -> bool:
    try:
        manifest = json.loads((root / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    for name in WHISPER_MODELS:
        files = manifest.get("models", {}).get(name, {}).get("files", {})
        if not files:
            return False
        for file_name, meta in files.items():
            path = root / name / file_name
            if not path.is_file() or path.stat().st_size != meta.get("size"):
                return False
    return True


@pytest.fixture(scope="session")
def model_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if _assembled(REPO / "models"):
        return REPO / "models"
    dest = tmp_path_factory.mktemp("models")
    cmd = [sys.executable, str(SCRIPT), "--dest", str(dest)]
    for name in WHISPER_MODELS:
        cmd += ["--only", name]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode == 2:
        pytest.skip(f"model packages missing: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    return dest


def _engine(model_dir: Path):
    pytest.importorskip("faster_whisper")
    from engines.asr.whisper import WhisperEngine

    engine = WhisperEngine(model_dir=str(model_dir), cpu_threads=2)
    engine.start()
    return engine


@pytest.fixture(scope="session")
def tiny_en(model_root: Path) -> Iterator:
    engine = _engine(model_root / "whisper-tiny.en")
    yield engine
    engine.shutdown()


@pytest.fixture(scope="session")
def base(model_root: Path) -> Iterator:
    engine = _engine(model_root / "whisper-base")
    yield engine
    engine.shutdown()


@pytest.fixture(scope="session")
def speak(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``speak(text, voice="en")`` -> path of an espeak-ng wav (cached per text)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed")
    folder = tmp_path_factory.mktemp("speech")
    cache: dict[tuple[str, str], Path] = {}

    def speak(text: str, voice: str = "en") -> Path:
        key = (text, voice)
        if key not in cache:
            path = folder / f"{len(cache)}-{voice}.wav"
            subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True)
            cache[key] = path
        return cache[key]

    return speak
