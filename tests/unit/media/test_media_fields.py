"""Numeric fields of ffprobe/ffmpeg output: never an exception, 0 for anything unusable."""

from __future__ import annotations

import math
from typing import Any

import pytest

from engines.media.fields import clock_field, float_field, int_field, rate_field


@pytest.mark.parametrize(
    ("value", "expected"),
    [("48000", 48000), (2, 2), (" 7 ", 7), (None, 0), ("N/A", 0), ("2.5", 0), ("", 0), ([], 0), (math.inf, 0)],
)
def test_int_field(value: Any, expected: int) -> None:
    assert int_field(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("3.5", 3.5),
        (b"2500000", 2500000.0),
        (4, 4.0),
        (None, 0.0),
        ("N/A", 0.0),
        ("nan", 0.0),
        ("inf", 0.0),
        ("-inf", 0.0),
        ("-1.5", 0.0),
        ("0", 0.0),
        (10**400, 0.0),
    ],
)
def test_float_field_is_positive_and_finite_or_zero(value: Any, expected: float) -> None:
    assert float_field(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"), [("30000/1001", 30000 / 1001), ("25/1", 25.0), ("0/0", 0.0), (None, 0.0), ("x", 0.0), ("1e400", 0.0)]
)
def test_rate_field(value: Any, expected: float) -> None:
    assert rate_field(value) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("value", "expected"), [("01:02:03.500000000", 3723.5), ("00:00:04", 4.0), (None, 0.0), ("4.5", 0.0), ("a:b:c", 0.0)]
)
def test_clock_field(value: Any, expected: float) -> None:
    assert clock_field(value) == pytest.approx(expected)
