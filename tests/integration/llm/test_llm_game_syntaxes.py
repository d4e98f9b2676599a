"""The placeholder table on the LLM and on pivot routes: every game syntax and ICU message comes back intact.

The unit table (tests/unit/translation/test_icu_messages.py) runs every
syntax through a word engine and Apertium; this one runs the same strings
through the real embedded server (SmolLM2-135M on CPU) and through two pivot
routes with an LLM leg (LLM into Spanish then Apertium into Catalan; Apertium
into Spanish then the LLM into English). Output checks are off, so the
model's own answer is what comes back, after the safety layer's repair: a
tiny model damages sentinels freely, which is exactly what the guarantee
must survive. Russian as target shows the plural categories it adds.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engines.translation.apertium.engine import ApertiumEngine
from engines.translation.base import TranslationRequest, TranslatorEngine
from engines.translation.icu import plan
from engines.translation.llm.engine import LLMEngine
from engines.translation.markup import find_spans
from engines.translation.pivot import PivotTranslator
from engines.translation.safe import SafeTranslator
from tests.support.game_strings import ICU_MESSAGES, SYNTAXES, shape

pytestmark = pytest.mark.llm

TABLE = {**SYNTAXES, **ICU_MESSAGES}


@pytest.fixture
def apertium(apertium: ApertiumEngine) -> ApertiumEngine:
    if not {("es", "ca"), ("ca", "es")} <= apertium.pairs():
        pytest.skip("apertium es-ca modes are not installed")
    return apertium


@pytest.fixture
def llm(llm_server) -> Iterator[LLMEngine]:
    engine = LLMEngine(
        base_url=llm_server.base_url,
        model=llm_server.model,
        batch_size=1,  # one segment per call: plain text, or guided JSON for a multi-line one
        structured_output="json_schema",
        max_tokens=160,
        single_max_tokens=48,
        concurrency=2,
        max_retries=0,
        output_checks=False,
        timeout_s=120,
        languages=("en", "es", "ca", "ru"),
    )
    engine.start()
    yield engine
    engine.shutdown()


def assert_intact(name: str, source: str, output: str) -> None:
    """Every inline span exactly once; an ICU message keeps its arguments, selectors and `#`."""
    if name in ICU_MESSAGES:
        before, after = plan(source), plan(output)
        assert after is not None, f"{name}: the output is no longer an ICU message: {output!r}"
        assert set(shape(source)) <= set(shape(output)), output
        assert before is not None and output.count("#") >= source.count("#")
    else:
        assert sorted(s.text for s in find_spans(output)) == sorted(s.text for s in find_spans(source)), output


def translate_table(engine: TranslatorEngine, source: str, target: str) -> tuple[str, ...]:
    names = sorted(TABLE)
    result = SafeTranslator(engine).translate(TranslationRequest(tuple(TABLE[n] for n in names), source, target))
    assert len(result.texts) == len(names)
    return result.texts


def test_every_syntax_survives_the_llm(llm: LLMEngine) -> None:
    for name, output in zip(sorted(TABLE), translate_table(llm, "en", "es"), strict=True):
        assert_intact(name, TABLE[name], output)
    assert llm.stats()["calls"] >= 2  # the model answered; nothing bypassed it


@pytest.mark.deep
def test_every_syntax_survives_a_pivot_with_an_llm_first_leg(llm: LLMEngine, apertium: ApertiumEngine) -> None:
    pivot = PivotTranslator(llm, apertium, "es", ["ca"])
    for name, output in zip(sorted(TABLE), translate_table(pivot, "en", "ca"), strict=True):
        assert_intact(name, TABLE[name], output)


@pytest.mark.deep
def test_every_syntax_survives_a_pivot_with_an_llm_second_leg(llm: LLMEngine, apertium: ApertiumEngine) -> None:
    pivot = PivotTranslator(apertium, llm, "es", ["en"])
    catalan = SafeTranslator(apertium).translate(TranslationRequest(tuple(TABLE[n] for n in sorted(TABLE)), "en", "ca"))
    table = dict(zip(sorted(TABLE), catalan.texts, strict=True))
    result = SafeTranslator(pivot).translate(TranslationRequest(tuple(table[n] for n in sorted(table)), "ca", "en"))
    for name, output in zip(sorted(table), result.texts, strict=True):
        assert_intact(name, table[name], output)


def test_russian_plurals_gain_few_and_many_through_the_llm(llm: LLMEngine) -> None:
    (output,) = SafeTranslator(llm).translate(TranslationRequest((ICU_MESSAGES["plural"],), "en", "ru")).texts
    message = plan(output)
    assert message is not None
    for selector in ("=0{", "one{", "few{", "many{", "other{"):
        assert selector in output, output
