"""The rules of each LanguageTool language, read from its lingotweaker data pack.

Pattern rules are in the pack's XML (``rules/grammar.xml``, ``style.xml`` and
their variant folders, ``rules/pt-BR/``): each ``<rule>`` or ``<rulegroup>`` id
with its category and type, and the variants that have it alone. Rules written in code (the spellers, ``EN_A_VS_AN``,
``WORD_REPEAT_RULE``, whitespace and bracket rules…) are not in the XML; they
are listed in ``configs/grammar/languagetool-builtin.yaml``, found by checking
the project's corpora and the rule ids LanguageTool documents. Reading all
packs takes a few seconds once per replica; the result is cached.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

import yaml

from engines.grammar.languagetool_types import classify
from engines.grammar.types import IssueType, Severity

BUILTIN = Path(__file__).resolve().parents[2] / "configs" / "grammar" / "languagetool-builtin.yaml"
#: Rule files that are not the language's default rules (second-language learners, bilingual, server-side).
SKIPPED = ("grammar-l2-", "bitext", "remote-rule-filters")
OFF = ("off", "temp_off")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"<(/?)(category|rulegroup|rule)\b([^>]*)>")
_ATTRIBUTE = re.compile(r'([\w:-]+)="([^"]*)"')


def data_root(pack: str) -> Path | None:
    """The installed data folder of ``lingotweaker-data-<pack>``, or None."""
    spec = importlib.util.find_spec(f"lingotweaker_data_{pack.replace('-', '_')}")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))) / "data"
    return root if root.is_dir() else None


@functools.cache
def pack_rules(pack: str) -> dict[str, tuple[IssueType, Severity, str, bool, str]]:
    """Rule id → (type, severity, name, on by default, category) for one pack ('' name when unnamed)."""
    root = data_root(pack)
    if root is None:
        return {}
    out: dict[str, tuple[IssueType, Severity, str, bool, str]] = {}
    for path in sorted(root.glob("*/rules/**/*.xml")):
        if any(path.name.startswith(s) for s in SKIPPED):
            continue
        _read(path, out)
    builtin = yaml.safe_load(BUILTIN.read_text(encoding="utf-8")) or {}
    for rule_id, (issue_type, category) in {**builtin.get("all", {}), **builtin.get(pack, {})}.items():
        kind, severity = classify(issue_type, category)
        out.setdefault(rule_id, (kind, severity, "", True, category))
    return out


@functools.cache
def variant_rules(pack: str) -> dict[str, frozenset[str]]:
    """Rule id → the variant folders (``rules/pt-PT/``, ``rules/en-GB/``) of the rules one variant has alone.

    LanguageTool keeps a variant's own rules in a folder named after it; lingotweaker loads them only for that
    variant (``Engine("pt", variant="pt-BR")`` has no ``rules/pt-PT/`` rule). Rules of the common files are not
    listed."""
    root = data_root(pack)
    if root is None:
        return {}
    common: dict[str, tuple[IssueType, Severity, str, bool, str]] = {}
    by_variant: dict[str, set[str]] = {}
    for path in sorted(root.glob("*/rules/**/*.xml")):
        if any(path.name.startswith(s) for s in SKIPPED):
            continue
        folder = path.parent.name if path.parent.parent.name == "rules" else ""
        found: dict[str, tuple[IssueType, Severity, str, bool, str]] = {}
        _read(path, found if folder else common)
        for rule_id in found:
            by_variant.setdefault(rule_id, set()).add(folder)
    return {rule_id: frozenset(folders) for rule_id, folders in by_variant.items() if rule_id not in common}


def _read(path: Path, out: dict[str, tuple[IssueType, Severity, str, bool, str]]) -> None:
    """Tags are scanned, not parsed: the packs use entities defined in DTDs they do not ship."""
    text = _COMMENT.sub("", path.read_text(encoding="utf-8", errors="replace"))
    category: tuple[str, str, bool] = ("", "", True)  # id, issue type, on
    in_group = False
    for match in _TAG.finditer(text):
        closing, tag, attributes = match.group(1), match.group(2), dict(_ATTRIBUTE.findall(match.group(3)))
        on = attributes.get("default") not in OFF
        if closing:
            in_group = in_group and tag != "rulegroup"
        elif tag == "category":
            category = (attributes.get("id", ""), attributes.get("type", ""), on)
        elif tag == "rulegroup":
            in_group = True
            issue_type = attributes.get("type") or category[1]
            _add(out, attributes.get("id", ""), issue_type, category[0], attributes.get("name", ""), on and category[2])
        elif tag == "rule" and not in_group:
            issue_type = attributes.get("type") or category[1]
            _add(out, attributes.get("id", ""), issue_type, category[0], attributes.get("name", ""), on and category[2])


def _add(out: dict, rule_id: str, issue_type: str, category: str, name: str, on: bool) -> None:
    if rule_id and rule_id not in out:
        kind, severity = classify(issue_type, category)
        out[rule_id] = (kind, severity, name, on, category)
