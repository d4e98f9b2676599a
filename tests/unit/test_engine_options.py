"""Engine options are typed: both profiles validate against each engine's own model, and a typo fails the build."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from core.capability_args import EngineSpec
from core.paths import PROJECT_ROOT
from core.settings import AppArgs
from engines.options import EngineOptions, OptionsError, validate_options
from engines.registry import ENGINES, create_engine, engine_class

#: The CPU profile, the GPU profile, and the GPU profile as the KubeRay RayService embeds it.
PROFILES = ("configs/local.yaml", "configs/gpu-cluster.yaml", "cluster/kuberay/rayservice.yaml")


def app_args(profile: str) -> dict[str, Any]:
    raw = yaml.safe_load((PROJECT_ROOT / profile).read_text())
    if raw.get("kind") == "RayService":
        raw = yaml.safe_load(raw["spec"]["serveConfigV2"])
    return next(app["args"] for app in raw["applications"] if app["import_path"] == "serve_app.app:build_app")


def engine_entries(args: dict[str, Any]) -> list[tuple[str, ...]]:
    """Key paths of every engine spec in a profile's args (``("grammar", "engines", 2)``, ``("asr",)``)."""
    found: list[tuple[str, ...]] = []
    for section, value in args.items():
        if isinstance(value, dict) and "engine" in value:
            found.append((section,))
            if isinstance(value.get("fallback"), dict):
                found.append((section, "fallback"))
        if isinstance(value, dict) and isinstance(value.get("engines"), list):
            found += [(section, "engines", i) for i in range(len(value["engines"]))]
    return found


def entry(args: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    node: Any = args
    for key in path:
        node = node[key]
    return node


def specs(args: AppArgs) -> list[EngineSpec]:
    found: list[EngineSpec] = []
    for section in (args.translator, args.grammar, args.tts):
        found += section.engines if section else []
    return found + [s for s in (args.asr, args.voice_cloner, args.diarizer) if s is not None]


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_engine_declares_documented_options(engine: str) -> None:
    model = engine_class(engine).Options
    assert issubclass(model, EngineOptions) and model is not EngineOptions
    assert model.model_config.get("extra") == "forbid"
    assert [name for name, field in model.model_fields.items() if not field.description] == []


@pytest.mark.parametrize("profile", PROFILES)
def test_profile_options_become_each_engines_model(profile: str) -> None:
    args = AppArgs.model_validate(app_args(profile))
    typed = specs(args)
    assert len(typed) >= 8
    for spec in typed:
        assert type(spec.options) is engine_class(spec.engine).Options, spec.engine
    # Deployments receive the model dumped and validate it again to the same options.
    again = AppArgs.model_validate(args.model_dump())
    assert [s.options for s in specs(again)] == [s.options for s in typed]


@pytest.mark.parametrize("profile", PROFILES)
def test_model_paths_arrive_absolute(profile: str) -> None:
    args = AppArgs.model_validate(app_args(profile))
    assert args.asr is not None
    assert Path(args.asr.options.model_dir).is_absolute()
    for spec in specs(args):
        for name, value in spec.options.model_dump().items():
            if name.endswith("_dir") and isinstance(value, str):
                assert Path(value).is_absolute(), (spec.engine, name, value)


def _cases() -> list[tuple[str, tuple[Any, ...]]]:
    return [(profile, path) for profile in PROFILES for path in engine_entries(app_args(profile))]


@pytest.mark.parametrize(("profile", "path"), _cases())
def test_a_misspelled_option_fails_the_build(profile: str, path: tuple[Any, ...]) -> None:
    from serve_app.app import build_app

    args = copy.deepcopy(app_args(profile))
    spec = entry(args, path)
    spec.setdefault("options", {})["timeout_secs"] = 5
    with pytest.raises(ValidationError) as failure:
        build_app(args)
    message = str(failure.value)
    assert f"engine {spec['engine']!r}" in message and "unknown option 'timeout_secs'" in message


@pytest.mark.parametrize("profile", PROFILES)
def test_an_out_of_range_option_names_engine_and_key(profile: str) -> None:
    args = copy.deepcopy(app_args(profile))
    assert isinstance(args["tts"]["engines"][-1], dict) and args["tts"]["engines"][-1]["engine"] == "espeak"
    args["tts"]["engines"][-1]["options"] = {"base_wpm": 5}
    with pytest.raises(ValidationError, match=r"engine 'espeak': option 'base_wpm'"):
        AppArgs.model_validate(args)


def test_an_unknown_engine_is_refused() -> None:
    with pytest.raises(ValidationError, match="unknown engine 'kokro'"):
        AppArgs.model_validate({"tts": {"engines": [{"engine": "kokro"}]}})


def test_describe_echoes_the_effective_options() -> None:
    described = create_engine("espeak", {"timeout_s": 5}).describe()
    expected = {"engine": "espeak", "binary": "espeak-ng", "timeout_s": 5.0, "base_wpm": 175, "stand_ins": {}, "voice_wpm": {}}
    assert described == expected


def test_keyword_overrides_are_validated_too() -> None:
    model = engine_class("espeak").Options
    with pytest.raises(OptionsError, match="unknown option 'speed'"):
        engine_class("espeak")(speed=2)
    assert validate_options("espeak", model, {"base_wpm": 200}).base_wpm == 200  # type: ignore[attr-defined]


def test_the_options_reference_is_current() -> None:
    """docs/engine-options.md is generated from the models: ``python -m engines.reference``."""
    from engines.reference import render

    assert (PROJECT_ROOT / "docs" / "engine-options.md").read_text(encoding="utf-8") == render()
