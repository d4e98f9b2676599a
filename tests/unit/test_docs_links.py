"""The documentation holds together in a clone of the repository: relative links resolve, the contract is inside."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "cluster").rglob("README.md"))]
#: ``[text](target)`` outside code spans; the target up to a space, a quote or the closing parenthesis.
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s\"']+)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


def relative_links(page: Path) -> list[str]:
    text = CODE.sub("", page.read_text(encoding="utf-8"))
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:|#|//", t)]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_resolves_inside_the_repository(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists() or (ROOT not in path.parents and path != ROOT):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def test_the_contract_ships_inside_and_matches_the_shared_specification() -> None:
    inside = ROOT / "docs" / "api-contract.md"
    assert inside.is_file() and "/v1/video/translate" in inside.read_text(encoding="utf-8")
    shared = ROOT.parent / "shared" / "spec" / "API.md"
    if shared.is_file():  # a checkout beside the shared specification: the copy is current
        assert inside.read_text(encoding="utf-8") == shared.read_text(encoding="utf-8")
