#!/usr/bin/env python3
"""Resolve the GPU image's Python packages into ``cluster/images/gpu-constraints.txt``.

    .venv/bin/python cluster/images/gpu_constraints.py           # write the file
    .venv/bin/python cluster/images/gpu_constraints.py --check   # resolve within the file; exit 1 if it differs

The GPU image installs ``requirements.lock``, then Ray Serve LLM with vLLM, coqui-tts and pyannote.audio at
the versions its ``ARG`` lines name. vLLM cannot share six of the lock's pins (``OVERRIDES``, cluster/images/
README.md), so the image would otherwise run versions nobody resolved before the build. This script asks
pip's resolver (``pip install --dry-run --report``, no download of what is already known) for the whole set,
with the lock's pins and the overrides as requirements, and writes every package and version it chose. The
image installs its GPU layer with ``-c gpu-constraints.txt``, so what it runs is this file.

The machine's pip configuration is ignored (``PIP_CONFIG_FILE=/dev/null`` and no ``PIP_*`` variable but the
certificate and timeout): a local index, a folder of wheels or a cap on torch must not shape what a clean build
resolves. Exit status: 0 done (or, with ``--check``, equal), 1 the
resolution differs from the file or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from packaging.utils import canonicalize_name  # noqa: E402

from cluster.local.lock_hashes import read_pins  # noqa: E402

DOCKERFILE = ROOT / "cluster/images/gpu.Dockerfile"
OUTPUT = ROOT / "cluster/images/gpu-constraints.txt"
HEADER = "# Written by cluster/images/gpu_constraints.py: every package of the GPU image and the version pip resolved."

#: requirements.lock pins that vLLM (as Ray Serve LLM pins it) cannot install with, and the versions it takes.
OVERRIDES = {
    "fastapi": "0.136.3",
    "numpy": "2.3.5",
    "numba": "0.65.0",
    "llvmlite": "0.47.0",
    "protobuf": "6.33.6",
    "grpcio-reflection": "1.81.1",
}


def build_args() -> dict[str, str]:
    """The ``ARG NAME=default`` lines of the GPU Dockerfile."""
    return dict(re.findall(r"^ARG (\w+)=(\S+)$", DOCKERFILE.read_text(), re.MULTILINE))


def gpu_layer() -> list[str]:
    """What the image installs over the lock, as its RUN line names it."""
    args = build_args()
    return [
        f"ray[llm]=={args['RAY_VERSION']}",
        f"vllm[audio]=={args['VLLM_VERSION']}",
        f"coqui-tts=={args['COQUI_TTS_VERSION']}",
        f"pyannote.audio=={args['PYANNOTE_AUDIO_VERSION']}",
    ]


def requested() -> list[str]:
    pins = read_pins(ROOT / "requirements.lock")
    unknown = set(OVERRIDES) - set(pins)
    if unknown:
        raise SystemExit(f"overrides name packages the lock does not pin: {sorted(unknown)}")
    return [f"{name}=={OVERRIDES.get(name, version)}" for name, version in sorted(pins.items())] + gpu_layer()


def resolve(constraints: Path | None = None) -> dict[str, str]:
    """What pip would install for the image, optionally held to ``constraints``."""
    with tempfile.TemporaryDirectory() as work:
        requirements = Path(work) / "requirements.txt"
        requirements.write_text("\n".join(requested()) + "\n")
        report = Path(work) / "report.json"
        command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet"]
        command += ["--report", str(report), "-r", str(requirements)]
        command += ["-c", str(constraints)] if constraints else []
        kept = {"PIP_CERT", "PIP_DEFAULT_TIMEOUT"}  # how to reach the index, not what to choose
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") or k in kept}
        env["PIP_CONFIG_FILE"] = os.devnull
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.stderr.write(done.stderr[-4000:])
            raise SystemExit(1)
        installs = json.loads(report.read_text())["install"]
    return {canonicalize_name(i["metadata"]["name"]): i["metadata"]["version"] for i in installs}


def render(resolved: dict[str, str]) -> str:
    return "\n".join([HEADER, *(f"{name}=={version}" for name, version in sorted(resolved.items()))]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="resolve within the file and compare with it")
    args = parser.parse_args(argv)
    # --check holds the resolution to the file: it proves the file installs as a whole (and still matches the
    # lock and the Dockerfile), without failing when a dependency publishes a newer release.
    text = render(resolve(OUTPUT if args.check else None))
    if args.check:
        if OUTPUT.read_text() == text:
            print(f"{OUTPUT.relative_to(ROOT)}: resolves to the same {text.count('==')} pins")
            return 0
        print(f"{OUTPUT.relative_to(ROOT)} differs from a fresh resolution; run without --check", file=sys.stderr)
        return 1
    OUTPUT.write_text(text)
    print(f"{OUTPUT.relative_to(ROOT)}: {text.count('==')} pins")
    return 0


if __name__ == "__main__":
    sys.exit(main())
