"""Stable rule ids: an engine's own rule name → the catalogue id (``configs/grammar/equivalents.yaml``)."""

from __future__ import annotations

import fnmatch
import functools
from pathlib import Path

import yaml

from engines.grammar.base import stable_id

PATH = Path(__file__).resolve().parents[2] / "configs" / "grammar" / "equivalents.yaml"


@functools.cache
def _table() -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = yaml.safe_load(PATH.read_text(encoding="utf-8"))
    return data


def _mapped(engine: str, name: str) -> str | None:
    table = _table().get(engine, {})
    if name in table:
        return table[name]
    for pattern, mapped in table.items():
        if "*" in pattern and fnmatch.fnmatchcase(name, pattern):
            return mapped
    return None


def rule_id(engine: str, name: str, prefix: str) -> str:
    """The catalogue id of ``engine``'s rule ``name``; ``prefix`` names rules of its own (``EN_HARPER``)."""
    return _mapped(engine, name) or stable_id(prefix, name)


def shared_ids(engine: str, name: str) -> tuple[str, ...]:
    """The shared catalogue id ``engine``'s rule ``name`` is an instance of, when it has one."""
    mapped = _mapped(engine, name)
    return (mapped,) if mapped and mapped != name else ()
