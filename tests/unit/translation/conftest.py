"""Fixtures for the translation tests: one started Apertium engine per session."""

from __future__ import annotations

import pytest

from engines.translation.apertium.engine import ApertiumEngine
from tests.support.apertium import started_apertium


@pytest.fixture(scope="session")
def apertium() -> ApertiumEngine:
    """A started engine over the installed modes; skips where Apertium is absent."""
    return started_apertium()
