"""The GPU layer of the images installs within cluster/images/gpu-constraints.txt, which pip resolved.

vLLM cannot share six of requirements.lock's pins. The constraints file is every package and version of the
GPU image as pip's resolver chose them (cluster/images/gpu_constraints.py), so the image's versions are known
before it is built. These tests keep the file, the lock and the Dockerfiles in step; the deep tier asks pip to
resolve the image within the file again.
"""

from __future__ import annotations

import re
import subprocess
import sys

from packaging.utils import canonicalize_name

from cluster.images.gpu_constraints import OUTPUT, OVERRIDES, build_args
from cluster.local.lock_hashes import read_pins
from tests.support.tiers import DEEP
from tests.unit.kuberay.manifests import IMAGES, ROOT


def test_the_file_pins_every_package_once() -> None:
    lines = [line for line in OUTPUT.read_text().splitlines() if not line.startswith("#")]
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9._-]*==[^=\s]+", line) for line in lines)
    names = [line.split("==")[0] for line in lines]
    assert len(names) == len(set(names)) > 300


def test_it_keeps_the_lock_but_for_the_overrides_vllm_needs() -> None:
    lock, gpu = read_pins(ROOT / "requirements.lock"), read_pins(OUTPUT)
    assert set(lock) <= set(gpu), "a package of the lock is missing from the GPU image"
    moved = {name: gpu[name] for name in lock if gpu[name] != lock[name]}
    assert moved == {canonicalize_name(k): v for k, v in OVERRIDES.items()}


def test_it_holds_the_versions_the_dockerfile_names() -> None:
    gpu, args = read_pins(OUTPUT), build_args()
    assert gpu["ray"] == args["RAY_VERSION"]
    assert gpu["vllm"] == args["VLLM_VERSION"]
    assert gpu["coqui-tts"] == args["COQUI_TTS_VERSION"]
    assert gpu["pyannote-audio"] == args["PYANNOTE_AUDIO_VERSION"]
    assert "torch" in gpu and not gpu["torch"].endswith("+cpu"), "resolved against a CPU torch"


def test_both_images_install_their_llm_layer_within_it() -> None:
    for name in ("cpu.Dockerfile", "gpu.Dockerfile"):
        text = (IMAGES / name).read_text()
        assert "COPY --chown=ray:users cluster/images/gpu-constraints.txt /tmp/gpu-constraints.txt" in text, name
        assert re.search(r'pip install -c /tmp/gpu-constraints.txt "ray\[llm\]==', text), name


def test_the_overrides_are_documented() -> None:
    readme = (IMAGES / "README.md").read_text()
    for name, version in OVERRIDES.items():
        assert f"{name} {version}" in readme or f"{name}=={version}" in readme, name


@DEEP
def test_pip_resolves_the_image_within_the_file() -> None:
    """A real resolution against the package index: the file installs as a whole and nothing else is chosen."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "cluster/images/gpu_constraints.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
