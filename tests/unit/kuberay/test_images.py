"""The images (cluster/images) are built on the locked Ray, install the locks and hold the profiles' models."""

from __future__ import annotations

import re
from importlib import metadata

import pytest

from cluster.local.lock_hashes import read_pins
from tests.unit.kuberay.manifests import GPU_CONFIG, IMAGES, ROOT, load_script


def instructions(name: str) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) of a Dockerfile, continuation lines joined and comments dropped."""
    lines = [line for line in (IMAGES / name).read_text().splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    out = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, rest = line.strip().partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def arg_defaults(name: str) -> dict[str, str]:
    return dict(rest.split("=", 1) for keyword, rest in instructions(name) if keyword == "ARG" and "=" in rest)


def run_text(name: str) -> str:
    return "\n".join(rest for keyword, rest in instructions(name) if keyword == "RUN")


def ray_pin() -> str:
    return read_pins(ROOT / "requirements.lock")["ray"]


@pytest.mark.parametrize(("name", "suffix"), [("cpu.Dockerfile", "-py311"), ("gpu.Dockerfile", "-py311-gpu")])
def test_image_is_built_on_the_locked_ray(name: str, suffix: str) -> None:
    args = arg_defaults(name)
    bases = [rest for keyword, rest in instructions(name) if keyword == "FROM"]
    assert len(bases) == 1
    base = re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], bases[0])
    assert base == f"rayproject/ray:{ray_pin()}{suffix}"
    assert args["RAY_VERSION"] == ray_pin()


@pytest.mark.parametrize("name", ["cpu.Dockerfile", "gpu.Dockerfile"])
def test_image_installs_the_locks_and_bakes_the_models(name: str) -> None:
    run = run_text(name)
    assert re.search(r"pip install (-\S+ )*-r requirements\.lock", run)
    assert re.search(r"pip install --no-deps -r requirements-nodeps\.lock", run)
    assert re.search(r"pip install --no-deps (-e )?\.", run)
    assert "python cluster/local/assemble_models.py --dest /models" in run
    assert "python cluster/local/kokoro_voices.py --dest /models/kokoro" in run
    assert "engines.voice.stock --model-dir /models/kokoro" in run
    env = " ".join(rest for keyword, rest in instructions(name) if keyword == "ENV")
    assert "HF_HUB_OFFLINE=1" in env and "TRANSFORMERS_OFFLINE=1" in env


def test_images_install_the_apt_packages_of_setup() -> None:
    for name in ("cpu.Dockerfile", "gpu.Dockerfile"):
        copied = [rest for keyword, rest in instructions(name) if keyword == "COPY"]
        assert any(rest.startswith("cluster/local/setup.sh ") for rest in copied), name
        assert "${APT_PACKAGES[@]}" in run_text(name), name
    assert "APT_PACKAGES=(" in (ROOT / "cluster" / "local" / "setup.sh").read_text()


def test_gpu_image_pins_ray_llm_to_the_vllm_ray_requires() -> None:
    args = arg_defaults("gpu.Dockerfile")
    required = [r for r in metadata.requires("ray") or [] if r.startswith("vllm") and 'extra == "llm"' in r]
    assert required, "ray[llm] names no vLLM"
    assert f"=={args['VLLM_VERSION']};" in required[0].replace(" ", ""), required[0]
    run = run_text("gpu.Dockerfile")
    assert '"ray[llm]==${RAY_VERSION}"' in run
    for package, arg in (("coqui-tts", "COQUI_TTS_VERSION"), ("pyannote.audio", "PYANNOTE_AUDIO_VERSION")):
        assert re.fullmatch(r"\d+(\.\d+)+", args[arg]), arg
        assert f'"{package}==${{{arg}}}"' in run


def test_gpu_image_holds_every_model_the_gpu_profile_names() -> None:
    assembled = {model.name for model in load_script(ROOT / "cluster" / "local" / "assemble_models.py").MODELS}
    downloaded = set(re.findall(r"--local-dir /models/([\w.-]+)", run_text("gpu.Dockerfile")))
    copied = {
        match.group(1)
        for keyword, rest in instructions("gpu.Dockerfile")
        if keyword == "COPY" and (match := re.search(r" /models/([\w.-]+)/?$", rest))
    }
    baked = assembled | downloaded | copied
    named = set(re.findall(r"/models/([\w.-]+)", GPU_CONFIG.read_text()))
    assert named, "the GPU profile names no /models folder"
    assert named <= baked, f"not in the GPU image: {sorted(named - baked)}"
    licensed = [rest for keyword, rest in instructions("gpu.Dockerfile") if keyword == "COPY" and "--from=models-gpu" in rest]
    assert {"/models/xtts-v2/", "/models/pyannote-speaker-diarization-3.1/"} <= {rest.split()[-1] for rest in licensed}


def test_gpu_image_fetches_weights_at_commits_not_branches() -> None:
    """Every hub revision the GPU image downloads defaults to a 40-hex commit, so two builds bake the same weights."""
    defaults = arg_defaults("gpu.Dockerfile")
    revisions = {name: value for name, value in defaults.items() if name.endswith("_REVISION")}
    assert revisions.keys() == {"WHISPER_REVISION", "LLM_REVISION"}
    for name, value in revisions.items():
        assert re.fullmatch(r"[0-9a-f]{40}", value), f"{name}={value} is not a commit"
        assert f'--revision "${{{name}}}"' in run_text("gpu.Dockerfile")
