"""Placeholder and markup protection around any translator engine.

Game and media strings carry format placeholders (``{0}``, ``%1$s``), rich
text tags (``<color=#f00>``, ``[b]``), line breaks and emoji (``markup``)
that must come out of translation byte-identical and exactly once: a lost
``%d`` crashes the game's formatter, a lost ``</color>`` paints the rest of
the screen.

``protect`` swaps each such span for a numbered sentinel ``<x0/>``. That
shape was chosen by measurement: it is the XLIFF-style inline tag LLMs are
trained to keep, and Apertium treats ``x0`` as an unknown word and the
escaped ``< / >`` as punctuation, so every installed mode, pivots included,
passes it through unchanged. Over every installed mode (about 1,300 corpus
sentences with sentinels inserted) ``⟦0⟧``, ``§0§`` and ``{0}`` were damaged by the
Swedish/Danish-Norwegian, Icelandic-English and Spanish-French modes;
private-use characters survived too but are invisible to an LLM.

``restore`` reads the engine output leniently (``< x0 />``, ``<X0>``), keeps
the first copy of each sentinel, re-inserts lost ones near where they stood
in the source, puts order-sensitive spans back into source order and only
then expands sentinels to the original text (the steps are in ``repair``),
so the result always carries every protected span exactly once. ``verify``
checks that it does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engines.translation.markup import GLOSSARY, Span, find_spans, markup_counts
from engines.translation.repair import RepairReport, expand, insert_missing, read_units, restore_order
from engines.translation.sentinels import SENTINEL, Protected


def protect(text: str, extra: Iterable[Span] = ()) -> Protected:
    """Swap every markup span, and each of ``extra`` that does not overlap one, for a sentinel.

    ``extra`` carries glossary terms; markup wins an overlap because a
    broken placeholder is worse than an unenforced term.
    """
    markup = find_spans(text)
    taken = [(s.start, s.end) for s in markup]
    kept = [s for s in extra if not any(s.start < e and b < s.end for b, e in taken)]
    spans = sorted(markup + kept, key=lambda s: s.start)
    parts: list[str] = []
    offsets: list[int] = []
    pos = 0
    length = 0
    for i, span in enumerate(spans):
        parts.append(text[pos : span.start])
        length += span.start - pos
        offsets.append(length)
        sentinel = SENTINEL.format(i)
        parts.append(sentinel)
        length += len(sentinel)
        pos = span.end
    parts.append(text[pos:])
    return Protected(text, "".join(parts), tuple(spans), tuple(offsets))


@dataclass(frozen=True)
class Restored:
    """The final text and how much repair it took."""

    text: str
    report: RepairReport


def restore(output: str, protected: Protected) -> Restored:
    """Expand sentinels in ``output`` back to their spans, repairing first."""
    report = RepairReport(total=len(protected.spans))
    units = read_units(output, protected, report)
    insert_missing(units, protected, report)
    restore_order(units, protected, report)
    return Restored(expand(units, protected), report)


def verify(restored: str, protected: Protected) -> bool:
    """True when ``restored`` holds exactly the source's markup plus the glossary terms."""
    expected = markup_counts(protected.source)
    for span in protected.spans:
        if span.kind == GLOSSARY:
            expected.update(markup_counts(span.output))
            if span.output not in restored:
                return False
    return markup_counts(restored) == expected
