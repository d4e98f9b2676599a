#!/usr/bin/env python3
"""Write the sha256 of every file of each pinned release into the lock files (pip's hash-checking mode).

    python cluster/local/lock_hashes.py requirements.lock requirements-dev.lock requirements-nodeps.lock

Each ``name==version`` line becomes ``name==version \\`` followed by one ``--hash=sha256:…`` line per file
of that release: every wheel and the sdist, as PyPI's JSON API lists them, plus any file of that release
in a local simple index named by ``--local-index`` (a machine's mirror, which pip may prefer). With a
hash on every line, ``pip install -r`` refuses any file whose bytes differ from the ones locked.

Run it after changing a pin; lines that already carry hashes are fetched again. Exit status: 0 done,
1 a release has no file to hash (the message names it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote, urlparse

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;#]+)")
INDEX = "https://pypi.org/simple/{name}/"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"


def logical_lines(text: str) -> list[str]:
    """The file's lines with continuations joined and hash options dropped (so the script can run again)."""
    joined = re.sub(r"\s*\\\n\s*", " ", text)
    return [re.sub(r"\s+--hash=\S+", "", line).rstrip() for line in joined.splitlines()]


def read_pins(path: Path) -> dict[str, str]:
    """Canonical name → version pinned in a lock file (hashes and environment markers left aside)."""
    pins = (PIN.match(line) for line in logical_lines(path.read_text(encoding="utf-8")))
    return {canonicalize_name(m.group(1)): m.group(2) for m in pins if m}


def release_of(filename: str) -> tuple[str, Version] | None:
    """(normalized name, version) of a wheel or sdist file name; None for other files (eggs, installers)."""
    try:
        if filename.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(filename)
        elif filename.endswith((".tar.gz", ".zip")):
            name, version = parse_sdist_filename(filename)
        else:
            return None
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None
    return canonicalize_name(name), version


def pypi_hashes(name: str, version: str) -> set[str]:
    """sha256 of the release's files, from the index's JSON simple API (what pip itself reads)."""
    request = urllib.request.Request(INDEX.format(name=canonicalize_name(name)), headers={"Accept": SIMPLE_JSON})
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    want = (canonicalize_name(name), Version(version))
    return {f["hashes"]["sha256"] for f in files if "sha256" in f["hashes"] and release_of(f["filename"]) == want}


def local_hashes(index: Path | None, name: str, version: str) -> set[str]:
    """sha256 of this release's files in a local simple index (``<index>/<name>/index.html`` linking files)."""
    if index is None:
        return set()
    page = index / canonicalize_name(name) / "index.html"
    if not page.is_file():
        return set()
    want = (canonicalize_name(name), Version(version))
    out = set()
    for href in re.findall(r'href="([^"]+)"', page.read_text(errors="ignore")):
        url = urlparse(href)
        path = Path(unquote(url.path)) if url.scheme in ("", "file") else None
        if path is not None and not path.is_absolute():
            path = (page.parent / path).resolve()
        if path is None or not path.is_file() or release_of(path.name) != want:
            continue
        fragment = dict(part.split("=", 1) for part in url.fragment.split("&") if "=" in part)
        if "sha256" not in fragment:
            with path.open("rb") as f:  # streamed: model packages run to gigabytes
                fragment["sha256"] = hashlib.file_digest(f, "sha256").hexdigest()
        out.add(fragment["sha256"])
    return out


def hashes_of(pin: tuple[str, str], local_index: Path | None) -> set[str]:
    name, version = pin
    return pypi_hashes(name, version) | local_hashes(local_index, name, version)


def rewrite(path: Path, found: dict[tuple[str, str], set[str]]) -> None:
    out = []
    for line in logical_lines(path.read_text(encoding="utf-8")):
        match = PIN.match(line)
        if match is None:
            out.append(line)
            continue
        digests = sorted(found[(match.group(1), match.group(2))])
        out.append(" \\\n".join([line, *(f"    --hash=sha256:{d}" for d in digests)]))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("locks", nargs="+", type=Path)
    parser.add_argument("--local-index", type=Path, default=Path("/opt/pypi/simple"))
    args = parser.parse_args(argv)
    local = args.local_index if args.local_index.is_dir() else None
    pins = {
        (m.group(1), m.group(2))
        for lock in args.locks
        for line in logical_lines(lock.read_text(encoding="utf-8"))
        if (m := PIN.match(line))
    }
    with ThreadPoolExecutor(max_workers=8) as pool:
        found = dict(zip(sorted(pins), pool.map(lambda pin: hashes_of(pin, local), sorted(pins))))
    missing = [f"{name}=={version}" for (name, version), digests in found.items() if not digests]
    if missing:
        print(f"no file to hash for: {', '.join(missing)}", file=sys.stderr)
        return 1
    for lock in args.locks:
        rewrite(lock, found)
    print(f"{len(found)} pins hashed ({sum(map(len, found.values()))} files) in {', '.join(map(str, args.locks))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
