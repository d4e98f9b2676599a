"""Apertium's options: defaults, limits, the profiles' values and the echo in describe()."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engines.options import OptionsError
from engines.registry import create_engine
from engines.translation.apertium.engine import BROKEN_MODES, ApertiumEngine, ApertiumOptions

ROOT = Path(__file__).resolve().parents[3]


def test_defaults() -> None:
    options = ApertiumEngine().options
    assert options == ApertiumOptions()
    assert (options.binary, options.data_dir, options.max_hops, options.timeout_s) == ("apertium", None, 3, 60.0)
    assert options.exclude_modes == BROKEN_MODES


def test_describe_echoes_the_options_before_start() -> None:
    assert ApertiumEngine(exclude_modes=["b", "a"]).describe() == {
        "engine": "apertium",
        "pairs": 0,
        "binary": "apertium",
        "data_dir": None,
        "max_hops": 3,
        "timeout_s": 60.0,
        "exclude_modes": ["a", "b"],
    }


def test_the_registry_validates_a_profile_mapping() -> None:
    engine = create_engine("apertium", {"timeout_s": 30, "exclude_modes": []})
    assert isinstance(engine, ApertiumEngine)
    assert engine.options.timeout_s == 30.0 and engine.options.exclude_modes == frozenset()
    with pytest.raises(OptionsError, match="unknown option 'max_hop'"):
        create_engine("apertium", {"max_hop": 2})


@pytest.mark.parametrize("bad", [{"max_hops": 0}, {"timeout_s": 0}, {"binary": ""}])
def test_out_of_range_options_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        ApertiumOptions(**bad)
    with pytest.raises(OptionsError):
        ApertiumEngine(**bad)


@pytest.mark.parametrize("profile", ["local.yaml", "gpu-cluster.yaml"])
def test_every_profile_configures_apertium_validly(profile: str) -> None:
    found = [
        node for node in _engine_nodes(yaml.safe_load((ROOT / "configs" / profile).read_text())) if node["engine"] == "apertium"
    ]
    assert found, f"{profile} has no apertium engine"
    for node in found:
        ApertiumOptions.model_validate(node.get("options") or {})


def _engine_nodes(tree: object) -> list[dict[str, object]]:
    if isinstance(tree, dict):
        own = [tree] if isinstance(tree.get("engine"), str) else []
        return own + [node for value in tree.values() for node in _engine_nodes(value)]
    if isinstance(tree, list):
        return [node for item in tree for node in _engine_nodes(item)]
    return []
