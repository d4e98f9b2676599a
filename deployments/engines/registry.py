"""Engine names used in Serve configs → engine classes, imported on demand."""

from __future__ import annotations

import importlib
from typing import Any

from deployments.engines.base import Engine

ENGINES: dict[str, str] = {
    "apertium": "deployments.engines.translation.apertium:ApertiumEngine",
    "llm": "deployments.engines.translation.llm:LLMEngine",
    "faster-whisper": "deployments.engines.asr.whisper:WhisperEngine",
}


def engine_class(name: str) -> type[Engine]:
    try:
        module_name, _, attr = ENGINES[name].partition(":")
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; known: {', '.join(sorted(ENGINES))}") from None
    cls: type[Engine] = getattr(importlib.import_module(module_name), attr)
    return cls


def create_engine(name: str, options: dict[str, Any] | None = None) -> Engine:
    """A constructed (not yet started) engine."""
    return engine_class(name)(**(options or {}))
