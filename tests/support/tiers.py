"""The two test tiers: ``make test`` and ``make test-deep`` (README, "Tests and benchmarks").

``make test`` checks every behaviour once, with real engines; ``make test-deep`` adds what repeats a check
over every language or format, drills real outages, runs the two-node cluster and fuzzes the API. A sweep
keeps a few representatives in ``make test`` (:func:`sweep`), so a regression in the mechanism is still
caught there, and the rest of the sweep in the deep tier.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any

import pytest

DEEP = pytest.mark.deep


def sweep(values: Iterable[Any], keep: Collection[Any], key: Callable[[Any], Any] = lambda v: v) -> list[Any]:
    """``values`` as parameters, those whose ``key`` is not in ``keep`` marked deep."""
    out = []
    for value in values:
        args = value if isinstance(value, tuple) else (value,)
        out.append(pytest.param(*args, marks=() if key(value) in keep else (DEEP,)))
    return out
