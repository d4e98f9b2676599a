"""Modules stay small (docs/architecture.md): no non-test Python module over 400 lines."""

from __future__ import annotations

from core.paths import PROJECT_ROOT

LIMIT = 400
SKIPPED = {".venv", "node_modules", "tests", "build", "dist", ".git"}


def test_no_module_over_the_limit() -> None:
    sizes = {}
    for path in PROJECT_ROOT.rglob("*.py"):
        relative = path.relative_to(PROJECT_ROOT)
        if SKIPPED.intersection(relative.parts) or relative.name.startswith("test_"):
            continue
        sizes[str(relative)] = len(path.read_text(encoding="utf-8").splitlines())
    assert len(sizes) > 100  # the walk found the project
    assert {name: n for name, n in sizes.items() if n > LIMIT} == {}
