"""The locks: requirements.lock is what the service runs (and the images install), requirements-dev.lock adds the tools."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from cluster.local.lock_hashes import read_pins

ROOT = Path(__file__).resolve().parents[2]
#: Tools that never belong in a production image.
TOOLS = {"pytest", "pytest-asyncio", "pytest-timeout", "hypothesis", "moto", "locust", "schemathesis", "mypy", "ruff"}
TOOLS |= {"matplotlib", "llm", "openai", "srt", "webvtt-py"}


LOCKS = ("requirements.lock", "requirements-dev.lock", "requirements-nodeps.lock")


def entries(name: str) -> list[str]:
    """A lock's requirement entries, continuation lines joined; ``-r`` lines and comments skipped."""
    text = re.sub(r"\s*\\\n\s*", " ", (ROOT / name).read_text(encoding="utf-8"))
    lines = (line.split(" #", 1)[0].strip() for line in text.splitlines() if not line.lstrip().startswith("#"))
    # An environment marker (``pkg==1.0 ; python_full_version < "3.11.3"``) stands between the pin and its hashes.
    lines = (re.sub(r"\s*;[^-]*(?=\s--hash|$)", "", line) for line in lines)
    return [line for line in lines if line and not line.startswith("-")]


def pins(name: str) -> dict[str, str]:
    """Package (canonical name) → version pinned in a lock file."""
    return read_pins(ROOT / name)


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pin_carries_the_hashes_of_its_files(lock: str) -> None:
    """pip's hash-checking mode: a file whose bytes differ from the locked ones is refused."""
    for entry in entries(lock):
        requirement, *options = entry.split()
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==[^=\s]+", requirement), entry
        assert options, f"{requirement} has no --hash"
        for option in options:
            assert re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", option), f"{requirement}: {option}"


#: Interpreters the locks serve: this one, and Debian bookworm's own Python 3.11.2 (a stock machine's python3).
PYTHONS = ({}, {"python_full_version": "3.11.2", "python_version": "3.11"})


def requirements_of(package: str, extras: frozenset[str]) -> list[Requirement]:
    """What an installed package declares it needs, with ``extras`` asked for, on any of ``PYTHONS``."""
    out = []
    for text in metadata.distribution(package).requires or []:
        requirement = Requirement(text)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({**py, "extra": e}) for e in (*extras, "") for py in PYTHONS):
            out.append(requirement)
    return out


def test_the_runtime_lock_holds_no_tool() -> None:
    assert not TOOLS & set(pins("requirements.lock"))


def test_the_dev_lock_builds_on_the_runtime_lock_and_pins_nothing_twice() -> None:
    lines = (ROOT / "requirements-dev.lock").read_text(encoding="utf-8").splitlines()
    assert "-r requirements.lock" in lines
    assert not set(pins("requirements-dev.lock")) & set(pins("requirements.lock"))
    assert set(pins("requirements-dev.lock")) >= TOOLS


def test_every_runtime_dependency_is_in_the_runtime_lock() -> None:
    """The closure of pyproject.toml's (and the client's) dependencies, read from the installed packages."""
    runtime = set(pins("requirements.lock")) | set(pins("requirements-nodeps.lock"))
    nodeps = set(pins("requirements-nodeps.lock"))  # installed without their declared dependencies
    roots = [
        Requirement(text)
        for project in ("pyproject.toml", "client/pyproject.toml")
        for text in tomllib.loads((ROOT / project).read_text(encoding="utf-8"))["project"]["dependencies"]
    ]
    missing, seen = set(), set()
    stack = [(r, frozenset(r.extras)) for r in roots if r.marker is None or r.marker.evaluate({"extra": ""})]
    while stack:
        requirement, extras = stack.pop()
        name = canonicalize_name(requirement.name)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        if name not in runtime:
            missing.add(name)
            continue
        if name in nodeps:
            continue
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue  # pinned for Debian's Python only (async-timeout on 3.11.2): not installed here to read
        try:
            stack += [(r, frozenset(r.extras)) for r in requirements_of(requirement.name, extras)]
        except metadata.PackageNotFoundError:
            pytest.fail(f"{name} is locked but not installed: run make setup")
    assert not missing, f"runtime dependencies missing from requirements.lock: {sorted(missing)}"


@pytest.mark.parametrize("image", ["cpu.Dockerfile", "gpu.Dockerfile"])
def test_images_install_the_runtime_lock_only(image: str) -> None:
    text = (ROOT / "cluster" / "images" / image).read_text(encoding="utf-8")
    assert "requirements.lock" in text
    assert "requirements-dev.lock" not in text
