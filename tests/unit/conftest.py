"""Unit tests never start Ray: any attempt fails loudly."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    import ray

    def forbidden(*args: object, **kwargs: object) -> None:
        raise RuntimeError("tests/unit must not start Ray; move the test to tests/integration")

    monkeypatch.setattr(ray, "init", forbidden)
