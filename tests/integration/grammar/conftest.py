"""The grammar engines of the CPU profile (configs/local.yaml) plus Quire, started once, in-process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from engines.grammar.base import GrammarEngine
from engines.grammar.checker import (
    DEFAULT_CHUNK_CHARS,
    DEFAULT_WORKERS,
    GrammarChecker,
    GrammarRequest,
    GrammarResult,
)
from engines.registry import create_engine

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "data" / "grammar" / "corpus.yaml"


def profile_engines() -> list[dict]:
    """The grammar engines configs/local.yaml deploys, plus Quire (off there by default)."""
    config = yaml.safe_load((ROOT / "configs" / "local.yaml").read_text())
    engines = list(config["applications"][0]["args"]["grammar"]["engines"])
    return [*engines, {"engine": "quire"}]


@pytest.fixture(scope="session")
def grammar_checker() -> Iterator[GrammarChecker]:
    engines: list[GrammarEngine] = []
    for spec in profile_engines():
        engine = create_engine(spec["engine"], spec.get("options"))
        assert isinstance(engine, GrammarEngine)
        engine.start()
        engines.append(engine)
    checker = GrammarChecker(engines, chunk_chars=DEFAULT_CHUNK_CHARS, workers=DEFAULT_WORKERS)
    yield checker
    checker.shutdown()


@pytest.fixture(scope="session")
def corpus() -> dict:
    return yaml.safe_load(CORPUS.read_text(encoding="utf-8"))


def check(checker: GrammarChecker, text: str, lang: str | None, **options: object) -> GrammarResult:
    return checker.check(GrammarRequest(text=text, lang=lang, **options))  # type: ignore[arg-type]
