"""ICU MessageFormat in translatable text: ``plural``, ``select`` and ``selectordinal`` kept intact.

``{count, plural, =0{No coins} one{# coin} other{{count} coins}}`` is a message
whose keywords, selectors, ``#`` and nesting are syntax, not text. ``plan``
parses a segment that holds such arguments and expands it into full-sentence
variants, one per combination of branches ("You have # coin left.", "You have
# coins left."), which engines translate like any segment; ``render`` puts the
translations back as one message whose branches hold whole sentences (the
shape ICU and FormatJS recommend: a translator's word order may differ per
branch). ``#`` travels as a placeholder the safety layer keeps exactly once.
Simple arguments (``{name}``) stay in the text, protected as placeholders.
Given the target language, a plural gains the categories that language
needs and the source lacks (Russian ``few`` and ``many`` for an English
``one``/``other``; ``plural_categories.py``): the added branch is the
``other`` branch with a sample count in place of ``#`` ("You have 2 coins"),
so the translation comes back in that category's form, and the count is
turned back into ``#``; when it does not come back exactly once the branch
repeats the translated ``other``.
A segment that is not well-formed ICU, or whose variants would exceed
``MAX_VARIANTS``, is translated as plain text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engines.translation import plural_categories

MAX_VARIANTS = 32
_COMPLEX = re.compile(r"\{\s*([A-Za-z_][\w.]*)\s*,\s*(plural|selectordinal|select)\s*,")
_SELECTOR = re.compile(r"\s*(offset:\s*\d+\s+)?(=\d+|[A-Za-z_][\w-]*)\s*")


def _hash_token(depth: int) -> str:
    """The placeholder ``#`` of the plural at ``depth`` travels as (a simple argument the safety layer protects)."""
    return f"{{icu_count_{depth}}}"


@dataclass(frozen=True)
class Argument:
    """One complex argument: ``{name, kind, [offset:n] sel{message} ...}``."""

    head: str  # "count, plural, " (with an offset when given)
    plural: bool
    cases: tuple[tuple[str, tuple[str | Argument, ...]], ...]


Message = tuple["str | Argument", ...]


class _Malformed(ValueError):
    pass


def _parse(text: str, pos: int, nested: bool) -> tuple[list[str | Argument], int]:
    """Parts of the message starting at ``pos``, up to its closing brace when ``nested``."""
    parts: list[str | Argument] = []
    literal: list[str] = []
    while pos < len(text):
        char = text[pos]
        if char == "}" and nested:
            break
        if char == "{":
            match = _COMPLEX.match(text, pos)
            if match:
                parts.append("".join(literal))
                literal = []
                argument, pos = _argument(text, match)
                parts.append(argument)
                continue
            end = _simple_end(text, pos)
            literal.append(text[pos:end])
            pos = end
            continue
        if char == "}":
            raise _Malformed("unbalanced }")
        literal.append(char)
        pos += 1
    if nested and pos >= len(text):
        raise _Malformed("unclosed branch")
    parts.append("".join(literal))
    return [p for p in parts if p != ""], pos


def _simple_end(text: str, pos: int) -> int:
    """End of a simple argument or placeholder starting at ``pos`` (``{name}``, ``{{var}}``)."""
    depth = 0
    for index in range(pos, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    raise _Malformed("unclosed argument")


def _argument(text: str, match: re.Match[str]) -> tuple[Argument, int]:
    pos = match.end()
    head = match.group(0)[1:] + " "
    cases: list[tuple[str, tuple[str | Argument, ...]]] = []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos < len(text) and text[pos] == "}":
            break
        selector = _SELECTOR.match(text, pos)
        if not selector or selector.end() >= len(text) or text[selector.end()] != "{":
            raise _Malformed("selector")
        if selector.group(1):
            head += selector.group(1).strip() + " "
        body, end = _parse(text, selector.end() + 1, nested=True)
        cases.append((selector.group(2), tuple(body)))
        pos = end + 1
    if not any(name == "other" for name, _ in cases):
        raise _Malformed("an ICU argument needs an `other` branch")
    return Argument(head, match.group(2) != "select", tuple(cases)), pos + 1


@dataclass(frozen=True)
class _Choice:
    head: str
    depth: int
    plural: bool
    cases: tuple[tuple[str, _Node], ...]
    #: Added categories → the sample count their variants carry instead of ``#``.
    added: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class _Leaf:
    index: int


_Node = _Choice | _Leaf


@dataclass(frozen=True)
class MessagePlan:
    """A segment expanded into variants (``leaves``) and how to put their translations back."""

    leaves: tuple[str, ...]
    root: _Node

    def render(self, translations: Sequence[str]) -> str:
        """The translated message: the source's arguments, each branch a translated whole sentence."""
        if len(translations) != len(self.leaves):
            raise ValueError(f"{len(translations)} translations for {len(self.leaves)} variants")
        return _render(self.root, translations)


def _render(node: _Node, translations: Sequence[str]) -> str:
    if isinstance(node, _Leaf):
        return translations[node.index]
    branches = []
    rendered = {}
    for selector, child in node.cases:
        text = _render(child, translations)
        if node.plural:
            text = text.replace(_hash_token(node.depth), "#")
        rendered[selector] = text
    samples = dict(node.added)
    for selector in _in_cldr_order([name for name, _ in node.cases]):
        text = rendered[selector]
        if selector in samples:
            count = re.findall(rf"(?<!\d){samples[selector]}(?!\d)", text)
            text = re.sub(rf"(?<!\d){samples[selector]}(?!\d)", "#", text) if len(count) == 1 else rendered["other"]
        branches.append(f"{selector}{{{text}}}")
    return "{" + node.head + " ".join(branches) + "}"


def plan(text: str, target: str | None = None) -> MessagePlan | None:
    """The variants of ``text`` when it holds plural/select arguments; None for plain text or malformed ICU.

    With ``target``, plurals gain the target language's missing categories.
    """
    if not _COMPLEX.search(text):
        return None
    try:
        parts, _ = _parse(text, 0, nested=False)
    except _Malformed:
        return None
    leaves: list[str] = []
    root = _expand(tuple(parts), leaves, 0, target)
    if root is None or len(leaves) > MAX_VARIANTS:
        return None
    return MessagePlan(tuple(leaves), root)


def _expand(parts: tuple[str | Argument, ...], leaves: list[str], depth: int, target: str | None = None) -> _Node | None:
    """The first argument (leftmost) becomes a choice; each branch is the message with it fixed."""
    if len(leaves) > MAX_VARIANTS:
        return None
    position = next((i for i, p in enumerate(parts) if isinstance(p, Argument)), None)
    if position is None:
        leaves.append("".join(p for p in parts if isinstance(p, str)))
        return _Leaf(len(leaves) - 1)
    argument = parts[position]
    assert isinstance(argument, Argument)
    cases = []
    added = _added_categories(argument, target)
    other = dict(argument.cases)["other"]
    for selector, body, sample in [*((s, b, None) for s, b in argument.cases), *((s, other, n) for s, n in added)]:
        hashed = _hash_token(depth) if sample is None else str(sample)
        inlined = tuple(_hash(p, hashed) if argument.plural and isinstance(p, str) else p for p in body)
        if sample is not None:  # the count written as its own argument (``{count} coins``) shows the sample too
            name = argument.head.split(",", 1)[0].strip()
            inlined = tuple(re.sub(rf"\{{\s*{re.escape(name)}\s*\}}", hashed, p) if isinstance(p, str) else p for p in inlined)
        child = _expand(parts[:position] + inlined + parts[position + 1 :], leaves, depth + 1, target)
        if child is None:
            return None
        cases.append((selector, child))
    return _Choice(argument.head, depth, argument.plural, tuple(cases), tuple(added))


def _in_cldr_order(selectors: list[str]) -> list[str]:
    """Exact matches (``=0``) as the source has them, then categories in CLDR order, ``other`` last."""
    rank = {name: i for i, name in enumerate(plural_categories.ORDER)}
    return sorted(selectors, key=lambda s: (0, 0) if s.startswith("=") else (1, rank.get(s, len(rank) - 1)))


def _added_categories(argument: Argument, target: str | None) -> list[tuple[str, int]]:
    """The target's plural categories the argument lacks, each with its sample count (none for ``select``)."""
    if target is None or not argument.plural:
        return []
    ordinal = "selectordinal" in argument.head
    offset = re.search(r"offset:\s*(\d+)", argument.head)
    if offset:  # ``#`` shows the count minus the offset: samples would mislead
        return []
    selectors = {name for name, _ in argument.cases}
    needed = plural_categories.missing(target, selectors, ordinal)
    return [(category, n) for category, n in needed.items() if category != "other"]


def _hash(literal: str, replacement: str) -> str:
    """``#`` of this plural as its placeholder token or sample count (an escaped ``'#'`` stays text)."""
    return re.sub(r"(?<!')#(?!')", replacement, literal)
