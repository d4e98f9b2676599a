"""Generated markup-heavy strings through real Apertium, direct pairs and pivots.

Two claims are checked on every string: the final text keeps every
placeholder, tag, line break and emoji (the product guarantee), and
Apertium itself passed every sentinel through untouched (the measurement
behind the sentinel shape, so repair is a safety net, not the normal path).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.translation.apertium.engine import ApertiumEngine
from engines.translation.base import TranslationRequest
from engines.translation.safe import SafeTranslator
from tests.unit.translation.translation_support import (
    APERTIUM_BUDGET,
    RecordingEngine,
    assert_preserved,
    markup_texts,
)

pytestmark = pytest.mark.apertium

ROUTES = [
    ("en", "es", ("en", "es")),
    ("en", "pt-BR", ("en", "es", "pt-BR")),
    ("en", "fr", ("en", "es", "fr")),
    ("es", "it", ("es", "it")),
    ("sv", "en", ("sv", "is", "en")),
    ("nl", "af", ("nl", "af")),
]


def sentinels(text: str) -> list[str]:
    return re.findall(r"<x\d+/>", text)


@pytest.mark.parametrize(("source", "target", "route"), ROUTES)
@APERTIUM_BUDGET
@given(data=st.data())
def test_every_span_survives_apertium(
    apertium: ApertiumEngine, source: str, target: str, route: tuple[str, ...], data: st.DataObject
) -> None:
    if (source, target) not in apertium.pairs():
        pytest.skip(f"{source}->{target} is not installed")
    texts = data.draw(st.lists(markup_texts(source), min_size=60, max_size=90), label="texts")
    recording = RecordingEngine(apertium, [])
    result = SafeTranslator(recording).translate(TranslationRequest(tuple(texts), source, target))
    assert result.route == route and not result.fallback
    for sent, answered in recording.outputs:
        for before, after in zip(sent, answered):
            assert sorted(sentinels(after)) == sorted(sentinels(before)), (before, after)
    for text, output in zip(texts, result.texts):
        assert_preserved(text, output)
