"""A started Apertium engine for tests, or a skip where it (or a mode a test needs) is absent."""

from __future__ import annotations

import shutil
from collections.abc import Iterable

import pytest

from engines.translation.apertium.engine import ApertiumEngine


def started_apertium(needs: Iterable[tuple[str, str]] = ()) -> ApertiumEngine:
    """An engine over the installed modes; skips where Apertium or one of ``needs`` is missing."""
    if shutil.which("apertium") is None:
        pytest.skip("apertium is not installed")
    engine = ApertiumEngine()
    engine.start()
    missing = set(needs) - engine.pairs()
    if missing:
        pytest.skip(f"apertium modes not installed: {sorted(missing)}")
    return engine
