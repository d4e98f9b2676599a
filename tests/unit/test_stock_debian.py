"""The quick start on a stock Debian bookworm: setup names every package it needs beyond the base system.

A stock bookworm is its ``Priority: required`` set (``cluster/local/debian-bookworm-base.txt``): what
``debootstrap --variant=minbase`` and the ``debian:bookworm`` image start from. It has no Python, no compiler,
no certificates, no curl and no npm, so ``cluster/local/setup.sh`` must name each of them. Where the packages
are installed (this machine, CI), their recorded dependencies also prove that each program the project runs
comes with the package the table below holds responsible for it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "cluster/local/setup.sh"
BASE = ROOT / "cluster/local/debian-bookworm-base.txt"
SOURCES = ("deployments", "pipelines", "serve_app", "core", "cluster", "tests", "loadtests")

#: Each program the project runs (service, setup scripts, tests), and the package of setup.sh that brings it.
PROGRAMS = {
    "python3": "python3",
    "g++": "g++",  # llama-cpp-python and the hunspell binding are built from source
    "curl": "curl",  # up.sh waits for /readyz
    "ffmpeg": "ffmpeg",
    "ffprobe": "ffmpeg",
    "fc-list": "fontconfig",  # which fonts a burned subtitle can use
    "fc-scan": "fontconfig",
    "espeak-ng": "espeak-ng",
    "apertium": "apertium",
    "lt-proc": "apertium",
    "redis-server": "redis-server",
    "redis-cli": "redis-server",
    "npm": "npm",  # packs Kokoro's voices; install_npm adds it where the nodejs in place lacks it
    "hunspell": "hunspell",
    "grammalecte-cli": "grammalecte-cli",
    "promtool": "prometheus",
}

#: Packages needed for something other than running a program: headers, data and certificates.
SUPPORT = ("python3-venv", "python3-dev", "libhunspell-dev", "ca-certificates", "fonts-noto-cjk", "codec2-examples")


@cache
def apt_packages() -> frozenset[str]:
    text = SETUP.read_text()
    body = re.search(r"^APT_PACKAGES=\((.*?)^\)", text, re.S | re.M)
    assert body, "setup.sh has no APT_PACKAGES=( … ) list"
    words = [w for line in body.group(1).splitlines() for w in line.split("#", 1)[0].split()]
    assert len(words) == len(set(words)), "a package is named twice"
    return frozenset(words)


def base_packages() -> set[str]:
    return {line.strip() for line in BASE.read_text().splitlines() if line.strip() and not line.startswith("#")}


def test_the_base_list_is_a_bare_system() -> None:
    base = base_packages()
    assert {"dpkg", "apt", "bash", "coreutils"} <= base
    assert not base & {"python3", "curl", "g++", "gcc", "nodejs", "npm", "ca-certificates"}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_every_program_comes_from_a_named_package(program: str) -> None:
    package = PROGRAMS[program]
    assert package in apt_packages() | base_packages() or (package == "npm" and "install_npm" in SETUP.read_text())


def test_support_packages_are_named() -> None:
    assert set(SUPPORT) <= apt_packages()


def test_every_program_in_the_table_is_run_somewhere() -> None:
    """The table has no dead rows: each program is named as a command in the project's own code or scripts."""
    texts = [p.read_text(errors="ignore") for d in SOURCES for p in (ROOT / d).rglob("*") if p.suffix in {".py", ".sh"}]
    texts.append((ROOT / "Makefile").read_text())
    corpus = "\n".join(texts)
    for program in PROGRAMS:
        assert re.search(rf"(?<![\w.-]){re.escape(program)}(?![\w-])", corpus), f"{program} is not run anywhere"


@cache
def installed_dependencies() -> dict[str, set[str]]:
    """Installed package → packages it depends on or provides (every alternative), from dpkg's status (read once)."""
    fmt = r"${Package}\t${Status}\t${Depends}, ${Pre-Depends}, ${Recommends}\t${Provides}\n"
    rows = subprocess.run(["dpkg-query", "-W", "-f", fmt], capture_output=True, text=True, check=True).stdout
    graph: dict[str, set[str]] = {}
    providers: dict[str, set[str]] = {}
    for row in rows.splitlines():
        name, status, depends, provides = [*row.split("\t"), "", "", ""][:4]
        if "install ok installed" not in status:
            continue
        graph[name] = {re.split(r"[\s:(]", alt.strip())[0] for alt in re.split(r"[,|]", depends) if alt.strip()}
        for virtual in re.split(r",", provides):
            if virtual.strip():
                providers.setdefault(re.split(r"[\s:(]", virtual.strip())[0], set()).add(name)
    return {name: deps | {p for d in deps for p in providers.get(d, ())} for name, deps in graph.items()}


def closure(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, ()))
    return seen


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="needs dpkg's status")
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_the_responsible_package_really_brings_the_program(program: str) -> None:
    """Where the named package is installed, the package that owns the program is it or one of its dependencies."""
    graph = installed_dependencies()
    package = PROGRAMS[program]
    path = shutil.which(program)
    if package not in graph or path is None:
        pytest.skip(f"{package} is not installed from Debian here")
    owner = subprocess.run(["dpkg", "-S", str(Path(path).resolve())], capture_output=True, text=True)
    if owner.returncode != 0:  # e.g. a merged-/usr path dpkg records under the other name
        owner = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
    if owner.returncode != 0:
        pytest.skip(f"{path} belongs to no Debian package here")
    owners = {part.split(":")[0].strip() for part in owner.stdout.split(": ", 1)[0].split(",")}
    assert owners & closure(graph, package), f"{program} comes from {owners}, not from {package} or its dependencies"
