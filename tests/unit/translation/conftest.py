"""Fixtures for the translation tests: one started Apertium engine per session."""

from __future__ import annotations

import shutil

import pytest

from deployments.engines.translation.apertium import ApertiumEngine


@pytest.fixture(scope="session")
def apertium() -> ApertiumEngine:
    """A started engine over the installed modes; skips where Apertium is absent."""
    if shutil.which("apertium") is None:
        pytest.skip("apertium is not installed")
    engine = ApertiumEngine()
    engine.start()
    return engine
