#!/usr/bin/env python3
"""Pack Kokoro's 54 stock voices (npm ``kokoro-js``) into one ``voices.npz`` for kokoro-onnx.

    python cluster/local/kokoro_voices.py --dest models/kokoro

``npm pack kokoro-js@VERSION`` fetches the package tarball (npm is one of the
registries these machines reach); each ``voices/<name>.bin`` is raw
little-endian float32 of shape ``[510, 1, 256]`` (one style row per phoneme
count). Idempotent: an existing ``voices.npz`` holding every voice with that
shape is left alone.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

PACKAGE = "kokoro-js"
VERSION = "1.2.1"
VOICE_COUNT = 54
SHAPE = (510, 1, 256)
OUTPUT = "voices.npz"


def up_to_date(target: Path) -> bool:
    try:
        with np.load(target) as packs:
            return len(packs.files) == VOICE_COUNT and all(packs[name].shape == SHAPE for name in packs.files)
    except (OSError, ValueError):
        return False


def fetch_tarball(workdir: Path) -> Path:
    out = subprocess.run(
        ["npm", "pack", f"{PACKAGE}@{VERSION}", "--silent", "--pack-destination", str(workdir)],
        check=True,
        capture_output=True,
        text=True,
        cwd=workdir,
    )
    return workdir / out.stdout.strip().splitlines()[-1]


def read_voices(tarball: Path) -> dict[str, np.ndarray]:
    voices: dict[str, np.ndarray] = {}
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            name = Path(member.name)
            if member.isfile() and name.parent.name == "voices" and name.suffix == ".bin":
                data = archive.extractfile(member)
                assert data is not None
                voices[name.stem] = np.frombuffer(data.read(), dtype="<f4").reshape(SHAPE).copy()
    if len(voices) != VOICE_COUNT:
        raise RuntimeError(f"{tarball.name}: found {len(voices)} voices, expected {VOICE_COUNT}")
    return voices


def write_npz(voices: dict[str, np.ndarray], target: Path) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **voices)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    with os.fdopen(fd, "wb") as out:
        out.write(buffer.getvalue())
    os.chmod(tmp, 0o644)
    os.replace(tmp, target)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dest", type=Path, default=Path("models/kokoro"))
    args = parser.parse_args(argv)
    args.dest.mkdir(parents=True, exist_ok=True)
    target = args.dest / OUTPUT
    if up_to_date(target):
        print(f"kokoro voices: up to date in {target}")
        return 0
    try:
        with tempfile.TemporaryDirectory() as workdir:
            voices = read_voices(fetch_tarball(Path(workdir)))
    except (OSError, subprocess.CalledProcessError, RuntimeError) as exc:
        print(f"cannot pack kokoro voices: {exc}", file=sys.stderr)
        return 1
    write_npz(voices, target)
    print(f"kokoro voices: {len(voices)} packed into {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
