"""Repairing an engine's output around sentinels, the steps of ``protect.restore``.

The output is read as a list of units, characters and sentinel numbers
(``read_units``), with damaged sentinels recognised and invented markup
dropped. Lost sentinels go back near where they stood in the source
(``insert_missing``), order-sensitive spans return to source order
(``restore_order``) and only then are sentinels expanded to their text
(``expand``). A ``RepairReport`` counts what each step had to fix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from engines.translation.markup import (
    BREAK,
    CLOSE,
    EMOJI,
    GLOSSARY,
    OPEN,
    ORDERED_PLACEHOLDER,
    PLACEHOLDER,
    Span,
    find_spans,
    pair_tags,
)
from engines.translation.sentinels import LENIENT_SENTINEL, SENTINEL, Protected


@dataclass
class RepairReport:
    """What ``restore`` had to fix in an engine's output.

    ``missing`` sentinels were re-inserted, ``extra`` ones (duplicates,
    unknown numbers, invented markup) removed, ``mangled`` ones recognised
    in a damaged form, ``reordered`` ones moved back into source order.
    """

    total: int = 0
    missing: list[int] = field(default_factory=list)
    extra: int = 0
    mangled: int = 0
    reordered: int = 0

    @property
    def clean(self) -> bool:
        """True when the engine kept every sentinel intact."""
        return not (self.missing or self.extra or self.mangled or self.reordered)

    @property
    def repairable(self) -> bool:
        """False when the engine lost so many sentinels that guessed positions would dominate.

        Up to half of them (and always one) can be put back near their
        source position with a fair result; beyond that another engine is
        the better answer.
        """
        return len(self.missing) <= max(1, self.total // 2)


Unit = str | int  # one character of engine output, or a sentinel number


def read_units(output: str, protected: Protected, report: RepairReport) -> list[Unit]:
    """Engine output as characters and sentinel numbers, damage undone.

    Every line break of the source was protected, so a real one in the
    output was invented by the engine and becomes a space.
    """
    output = re.sub(r"\r\n|\r|\n", " ", output)
    units: list[Unit] = []
    seen: set[int] = set()
    pos = 0
    for match in LENIENT_SENTINEL.finditer(output):
        units.extend(_strip_invented(output[pos : match.start()], protected, seen, report))
        number = int(match.group(1))
        if number < len(protected.spans) and number not in seen:
            seen.add(number)
            units.append(number)
            report.mangled += match.group() != SENTINEL.format(number)
        else:
            report.extra += 1
        pos = match.end()
    units.extend(_strip_invented(output[pos:], protected, seen, report))
    return units


def _strip_invented(text: str, protected: Protected, seen: set[int], report: RepairReport) -> list[Unit]:
    """Characters of ``text``, minus markup the engine wrote on its own.

    An engine sometimes writes the original placeholder instead of its
    sentinel; when that text belongs to a sentinel not seen yet it counts
    as that sentinel. Emoji are left alone: an invented one is harmless.
    """
    units: list[Unit] = []
    pos = 0
    for span in find_spans(text):
        if span.kind == EMOJI:
            continue
        units.extend(text[pos : span.start])
        pos = span.end
        number = _unseen_with_text(span.text, protected, seen)
        if number is None:
            report.extra += 1
        else:
            seen.add(number)
            units.append(number)
            report.mangled += 1
    units.extend(text[pos:])
    return units


def _unseen_with_text(text: str, protected: Protected, seen: set[int]) -> int | None:
    for i, span in enumerate(protected.spans):
        if i not in seen and span.text == text and span.kind != GLOSSARY:
            return i
    return None


def insert_missing(units: list[Unit], protected: Protected, report: RepairReport) -> None:
    """Put each lost sentinel back at a word boundary near its source position.

    The position is interpolated between the nearest sentinels that did
    survive (or the text ends), so a lost span lands among the words that
    surrounded it even when the translation is much longer or shorter.
    """
    present = {u for u in units if isinstance(u, int)}
    report.missing = [i for i in range(len(protected.spans)) if i not in present]
    for number in report.missing:
        lo, hi, target = _target(units, number, protected)
        late = protected.spans[number].kind == CLOSE
        at = _nearest_boundary(units, target, lo, hi, late)
        units[at:at] = _with_spacing(units, at, number, protected)
        k = units.index(number)
        if 0 < k < len(units) - 1 and units[k - 1] == units[k + 1] == " ":
            del units[k + 1]  # the gap the engine left where the span was


def _target(units: list[Unit], number: int, protected: Protected) -> tuple[int, int, float]:
    """Allowed range and preferred insertion index for a lost sentinel."""
    where = {u: i for i, u in enumerate(units) if isinstance(u, int)}
    before = [n for n in where if n < number]
    after = [n for n in where if n > number]
    src_lo, lo = (_end_offset(protected, max(before)), where[max(before)] + 1) if before else (0, 0)
    src_hi, hi = (
        (protected.offsets[min(after)], where[min(after)])
        if after
        else (
            len(protected.text),
            len(units),
        )
    )
    if lo > hi:  # survivors swapped places: only the whole text is a safe range
        src_lo, lo, src_hi, hi = 0, 0, len(protected.text), len(units)
    share = (protected.offsets[number] - src_lo) / max(1, src_hi - src_lo)
    return lo, hi, lo + share * (hi - lo)


def _end_offset(protected: Protected, number: int) -> int:
    return protected.offsets[number] + len(SENTINEL.format(number))


def _nearest_boundary(units: list[Unit], target: float, lo: int, hi: int, late: bool) -> int:
    """The word boundary in [lo, hi] closest to ``target``.

    Ties go to the earlier boundary, or the later one for closing tags,
    so a re-inserted tag pair encloses the words rather than nothing.
    """
    candidates = [p for p in range(lo, hi + 1) if _is_boundary(units, p)]
    if not candidates:
        return min(max(round(target), lo), hi)
    return min(candidates, key=lambda p: (abs(p - target), -p if late else p))


def _is_boundary(units: list[Unit], p: int) -> bool:
    if p == 0 or p == len(units):
        return True
    left, right = units[p - 1], units[p]
    if isinstance(left, int) or isinstance(right, int):
        return True
    return left.isspace() or right.isspace() or left.isalnum() != right.isalnum()


def _with_spacing(units: list[Unit], at: int, number: int, protected: Protected) -> list[Unit]:
    """The sentinel plus the spaces that separated it from its words in the source."""
    span = protected.spans[number]
    source = protected.source
    space_before = span.start > 0 and source[span.start - 1].isspace()
    space_after = span.end < len(source) and source[span.end].isspace()
    word_before = at > 0 and _is_text(units[at - 1])
    word_after = at < len(units) and _is_text(units[at])
    return ([" "] if space_before and word_before else []) + [number] + ([" "] if space_after and word_after else [])


def _is_text(unit: Unit) -> bool:
    return isinstance(unit, str) and not unit.isspace()


def restore_order(units: list[Unit], protected: Protected, report: RepairReport) -> None:
    """Reorder the spans whose order carries meaning back into source order.

    Non-positional printf fields are filled left to right; tags must nest
    as they did; line breaks keep their sequence of ``\\n`` and ``\\r\\n``.
    Other placeholders are free to move with the words they belong to.
    """
    spans = protected.spans
    groups = [
        [i for i, s in enumerate(spans) if s.kind == PLACEHOLDER and ORDERED_PLACEHOLDER.fullmatch(s.text)],
        [i for i, s in enumerate(spans) if s.kind == BREAK],
    ]
    paired = [i for i, s in enumerate(spans) if s.kind in (OPEN, CLOSE)]
    if not _nested(units, spans):
        groups.append(paired)
    for group in groups:
        report.reordered += _sort_in_place(units, set(group))


def _nested(units: list[Unit], spans: Sequence[Span]) -> bool:
    """True when the paired tags in ``units`` open and close as in the source."""
    partner = pair_tags(spans)
    stack: list[int] = []
    for u in units:
        if isinstance(u, int) and spans[u].kind == OPEN:
            stack.append(u)
        elif isinstance(u, int) and spans[u].kind == CLOSE and (not stack or partner.get(stack.pop()) != u):
            return False
    return not stack


def _sort_in_place(units: list[Unit], group: set[int]) -> int:
    """Give the slots held by ``group`` to its members in source order; count moves."""
    slots = [i for i, u in enumerate(units) if isinstance(u, int) and u in group]
    ordered = sorted(units[i] for i in slots)  # type: ignore[type-var]
    moved = sum(units[i] != n for i, n in zip(slots, ordered))
    for i, n in zip(slots, ordered):
        units[i] = n
    return moved


def expand(units: list[Unit], protected: Protected) -> str:
    """Render units; a line break takes back the spaces it had in the source.

    Engines pad sentinels with spaces of their own; around a line break
    those would become trailing or leading blanks on the lines.
    """
    out: list[str] = []
    after_break = False
    for u in units:
        if isinstance(u, int):
            span = protected.spans[u]
            if span.kind == BREAK:
                _drop_trailing_blanks(out)
                out += [_blank_before(protected.source, span), span.output]
                out.append(_blank_after(protected.source, span))
            else:
                out.append(span.output)
            after_break = span.kind == BREAK
        elif not (after_break and u in " \t"):
            out.append(u)
            after_break = False
    return "".join(out)


def _drop_trailing_blanks(out: list[str]) -> None:
    while out and out[-1] in (" ", "\t"):
        out.pop()


def _blank_before(source: str, span: Span) -> str:
    start = span.start
    while start > 0 and source[start - 1] in " \t":
        start -= 1
    return source[start : span.start]


def _blank_after(source: str, span: Span) -> str:
    end = span.end
    while end < len(source) and source[end] in " \t":
        end += 1
    return source[span.end : end]
