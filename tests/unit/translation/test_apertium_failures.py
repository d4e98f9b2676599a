"""How ApertiumEngine fails: missing binary, crashes, timeouts, broken framing.

Small launcher scripts stand in for ``apertium`` where the point is the
failure itself; where the point is recovery, the script wraps the real
apertium and only damages its output, so the recovered text must equal
what the real engine produces.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engines.errors import EngineFailure, EngineTimeout, EngineUnavailable
from engines.translation.apertium.engine import ApertiumEngine
from engines.translation.base import TranslationRequest

REQUEST = TranslationRequest(("The red car is fast.", "The dog eats."), "en", "es")


def launcher(tmp_path: Path, body: str, modes: str = "eng-spa") -> str:
    """An executable Python script answering ``-l`` with ``modes``, then running ``body``."""
    path = tmp_path / "apertium"
    path.write_text(
        f"#!{sys.executable}\n"
        "import os, subprocess, sys, time\n"
        "if '-l' in sys.argv:\n"
        f"    print({modes!r})\n"
        "    sys.exit(0)\n" + body
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_missing_binary_is_unavailable() -> None:
    engine = ApertiumEngine(binary="/nonexistent/apertium")
    with pytest.raises(EngineUnavailable) as caught:
        engine.start()
    assert isinstance(caught.value.__cause__, OSError)


def test_not_started_is_unhealthy() -> None:
    with pytest.raises(EngineUnavailable):
        ApertiumEngine().health()
    assert ApertiumEngine().pairs() == frozenset()


def test_broken_pair_is_excluded_unless_asked_for(tmp_path: Path) -> None:
    binary = launcher(tmp_path, "sys.exit(1)\n", modes="  eng-spa\n  rus-ukr\n  ukr-rus")
    default = ApertiumEngine(binary=binary)
    default.start()
    assert default.modes() == {"eng-spa"}
    assert ("ru", "uk") not in default.pairs()
    everything = ApertiumEngine(binary=binary, exclude_modes=[])
    everything.start()
    assert {("ru", "uk"), ("uk", "ru"), ("en", "es")} <= everything.pairs()


def test_health_reports_a_launcher_that_broke_after_start(tmp_path: Path) -> None:
    binary = Path(launcher(tmp_path, "sys.exit(0)\n"))
    engine = ApertiumEngine(binary=str(binary))
    engine.start()
    engine.health()
    binary.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(2)\n")
    with pytest.raises(EngineUnavailable):
        engine.health()
    binary.unlink()
    with pytest.raises(EngineUnavailable):
        engine.health()


def test_crash_is_a_failure_with_its_stderr(tmp_path: Path) -> None:
    engine = ApertiumEngine(binary=launcher(tmp_path, "sys.stderr.write('segfault in lt-proc')\nsys.exit(3)\n"))
    engine.start()
    assert ("en", "es") in engine.pairs()
    with pytest.raises(EngineFailure, match="segfault in lt-proc") as caught:
        engine.translate(REQUEST)
    assert isinstance(caught.value.__cause__, subprocess.CalledProcessError)


def test_timeout_kills_the_whole_pipeline(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    body = f"child = subprocess.Popen(['sleep', '30'])\nopen({str(pid_file)!r}, 'w').write(str(child.pid))\nchild.wait()\n"
    engine = ApertiumEngine(binary=launcher(tmp_path, body), timeout_s=1.0)
    engine.start()
    began = time.monotonic()
    with pytest.raises(EngineTimeout) as caught:
        engine.translate(REQUEST)
    assert time.monotonic() - began < 10
    assert isinstance(caught.value.__cause__, subprocess.TimeoutExpired)
    assert not _running(int(pid_file.read_text()))


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie awaiting its reaper."""
    for _ in range(50):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state == "Z":
            return False
        time.sleep(0.1)
    return True


# A wrapper around the real apertium that loses the NUL framing partway,
# the way a pipeline stage that aborts mid-batch does. It logs how many
# chunks each run received.
_WRAPPER = r"""
if "-l" in sys.argv:
    os.execv(os.environ["REAL_APERTIUM"], [os.environ["REAL_APERTIUM"], *sys.argv[1:]])
NUL = bytes([0])
payload = sys.stdin.buffer.read()
with open(os.environ["CHUNK_LOG"], "a") as log:
    log.write(str(payload.count(NUL)) + "\n")
real = subprocess.run([os.environ["REAL_APERTIUM"], *sys.argv[1:]], input=payload, capture_output=True)
out = real.stdout
if os.environ["DAMAGE"] == "truncate" and payload.count(NUL) > 1:
    out = out[: out.index(NUL) + 1]
if os.environ["DAMAGE"] == "die-on-boom" and b"Boom" in payload:
    bad = next(i for i, chunk in enumerate(payload.split(NUL)) if b"Boom" in chunk)
    out = b"".join(piece + NUL for piece in out.split(NUL)[:bad])
sys.stdout.buffer.write(out)
"""


@pytest.fixture
def damaging(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    real = shutil.which("apertium")
    if real is None:
        pytest.skip("apertium is not installed")
    log = tmp_path / "chunks.log"
    monkeypatch.setenv("REAL_APERTIUM", real)
    monkeypatch.setenv("CHUNK_LOG", str(log))

    def make(damage: str) -> tuple[ApertiumEngine, Path]:
        monkeypatch.setenv("DAMAGE", damage)
        path = tmp_path / "apertium"
        path.write_text(f"#!{sys.executable}\nimport os, subprocess, sys\n" + _WRAPPER)
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
        engine = ApertiumEngine(binary=str(path))
        engine.start()
        return engine, log

    return make


@pytest.mark.apertium
def test_lost_framing_is_recovered_chunk_by_chunk(apertium: ApertiumEngine, damaging) -> None:  # type: ignore[no-untyped-def]
    texts = ("The red car is fast.", "The dog eats.", "Where is the station?", "Press the button.", "Welcome back.")
    engine, log = damaging("truncate")
    recovered = engine.translate(TranslationRequest(texts, "en", "es")).texts
    assert recovered == apertium.translate(TranslationRequest(texts, "en", "es")).texts
    # batch, the broken chunk alone, the rest as a batch, and so on
    assert log.read_text().split() == ["5", "1", "3", "1", "1"]


@pytest.mark.apertium
def test_a_chunk_that_kills_the_pipeline_fails_the_request(damaging) -> None:  # type: ignore[no-untyped-def]
    engine, log = damaging("die-on-boom")
    texts = ("The red car is fast.", "Boom goes the dynamite.", "The dog eats.")
    with pytest.raises(EngineFailure, match="Boom"):
        engine.translate(TranslationRequest(texts, "en", "es"))
    # the batch, then the bad chunk alone: never one process per line
    assert log.read_text().split() == ["3", "1"]
