"""Both Serve configs load, validate against Serve's schema and our typed args."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from ray.serve.schema import ServeDeploySchema

from core.settings import AppArgs
from engines.registry import ENGINES

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
OUR_DEPLOYMENTS = {"Ingress", "Translator", "Localizer", "ASR", "JobWorker", "Grammar", "TTS", "VoiceCloner", "Diarizer"}


@pytest.mark.parametrize("name", ["local.yaml", "gpu-cluster.yaml"])
def test_config_validates(name: str) -> None:
    raw = yaml.safe_load((CONFIGS / name).read_text())
    schema = (
        ServeDeploySchema.model_validate(raw)
        if hasattr(ServeDeploySchema, "model_validate")
        else ServeDeploySchema.parse_obj(raw)
    )
    ours = [app for app in schema.applications if app.import_path == "serve_app.app:build_app"]
    assert len(ours) == 1
    args = AppArgs.model_validate(ours[0].args)
    assert args.translator is not None
    assert [spec.engine for spec in args.translator.engines if spec.engine not in ENGINES] == []
    assert args.grammar is not None and all(e.engine in ENGINES for e in args.grammar.engines)
    assert args.diarizer is not None and args.diarizer.engine in ENGINES
    assert args.tts is not None and args.dubbing.voice_ranking and Path(args.dubbing.voice_ranking).is_file()
    names = {d.name for d in ours[0].deployments}
    assert names <= OUR_DEPLOYMENTS, names - OUR_DEPLOYMENTS
    for deployment in ours[0].deployments:
        actor = deployment.ray_actor_options
        if name == "local.yaml":
            assert 0 < actor.num_cpus < 1, "the CPU profile must fit 2 cores with fractional num_cpus"


def test_local_profile_fits_two_cores() -> None:
    raw = yaml.safe_load((CONFIGS / "local.yaml").read_text())
    total = sum(
        d["ray_actor_options"]["num_cpus"] * d.get("autoscaling_config", {}).get("max_replicas", d.get("num_replicas", 1))
        for app in raw["applications"]
        for d in app["deployments"]
    )
    assert round(total, 6) <= 2  # summed floats: 0.1 + 0.2 is not exactly 0.3


def test_gpu_profile_uses_llm_with_fallback_and_autoscaling() -> None:
    raw = yaml.safe_load((CONFIGS / "gpu-cluster.yaml").read_text())
    apps = {a["name"]: a for a in raw["applications"]}
    ours = AppArgs.model_validate(apps["mediatrans"]["args"])
    assert ours.translator and [s.engine for s in ours.translator.engines] == ["llm", "apertium"]
    for deployment in apps["mediatrans"]["deployments"]:
        assert "autoscaling_config" in deployment
        assert deployment.get("max_queued_requests", -1) != -1 or deployment["name"] == "Ingress"


def test_unknown_args_are_rejected() -> None:
    with pytest.raises(ValueError):
        AppArgs.model_validate({"translatr": {"engine": "apertium"}})


def test_code_defaults_fit_two_cores() -> None:
    """``build_app`` run directly (benchmarks, integration tests) uses the decorators' options, not a profile's."""
    from deployments.asr import ASR
    from deployments.diarizer import Diarizer
    from deployments.grammar import Grammar
    from deployments.llm_server import LLMServer
    from deployments.localizer import Localizer
    from deployments.translator import Translator
    from deployments.tts import TTS
    from deployments.voice_cloner import VoiceCloner
    from pipelines.worker import JobWorker
    from serve_app.ingress import Ingress

    every = (ASR, Diarizer, Grammar, LLMServer, Localizer, Translator, TTS, VoiceCloner, JobWorker, Ingress)
    total = sum(d.ray_actor_options["num_cpus"] for d in every)
    assert round(total, 6) <= 1.8  # headroom for Ray Data's chunk tasks
