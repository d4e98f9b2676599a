"""Deterministic shortening of translated strings to a length budget.

UI slots have hard limits, and a string cut blindly breaks the game: half
a ``{0}`` is a format error, a dropped ``</color>`` colours the rest of the
screen. ``shorten`` therefore treats placeholders, tags and emoji as atoms,
keeps tag pairs balanced (a pair goes only when nothing it wraps is left),
cuts at word boundaries unless a single word is all a line has, and spends
the budget evenly across lines so a two-line label stays two lines.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from engines.translation.markup import BREAK, CLOSE, OPEN, find_spans, pair_tags

ELLIPSIS = "\u2026"

# Atom kinds beyond the span kinds: text pieces.
WORD = "word"  # may be cut at a grapheme boundary when it is a line's first
SPACE = "space"
ATOM = "atom"  # placeholder, standalone tag or emoji: kept whole or dropped

# Characters of scripts written without spaces: each grapheme is a "word".
_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\U00020000-\U0002fa1f]"
)
_PIECES = re.compile(r"\s+|\S+")


@dataclass(frozen=True)
class Atom:
    """A piece of the text that is kept whole, cut (words only) or dropped."""

    kind: str
    text: str
    name: str = ""  # tag name, so pairs are matched as in the source


def shorten(text: str, max_length: int) -> str:
    """``text`` cut to at most ``max_length`` characters, markup intact.

    Returns ``text`` itself when it fits. Otherwise every line keeps a
    prefix of its words, lines sharing the budget evenly; an ellipsis marks
    each cut line when there is room for it. Only when even one word per
    line cannot fit are trailing lines dropped; when not even the first
    word or placeholder fits, the answer is a lone ellipsis.
    """
    if max_length < 0:
        raise ValueError("max_length must be >= 0")
    if len(text) <= max_length:
        return text
    plan = _Plan(_atoms(text))
    lines = plan.most_lines(max_length)
    for options in _PREFERENCE:
        result = plan.best(lines, options, max_length)
        if result is not None:
            return result
    return ELLIPSIS if max_length else ""


def _atoms(text: str) -> list[Atom]:
    atoms: list[Atom] = []
    pos = 0
    for span in find_spans(text):
        atoms += _text_atoms(text[pos : span.start])
        kind = span.kind if span.kind in (OPEN, CLOSE, BREAK) else ATOM
        atoms.append(Atom(kind, span.text, span.name))
        pos = span.end
    atoms += _text_atoms(text[pos:])
    return atoms


def _text_atoms(text: str) -> list[Atom]:
    atoms = []
    for piece in _PIECES.findall(text):
        if piece.isspace():
            atoms.append(Atom(SPACE, piece))
        elif _UNSPACED.search(piece):
            atoms += [Atom(WORD, g) for g in _graphemes(piece)]
        else:
            atoms.append(Atom(WORD, piece))
    return atoms


def _graphemes(word: str) -> list[str]:
    """Split into user-perceived characters: marks, joiners and selectors stay attached."""
    clusters: list[str] = []
    for ch in word:
        joined = clusters and (
            unicodedata.category(ch).startswith("M") or ch in "\u200d\ufe0e\ufe0f" or clusters[-1].endswith("\u200d")
        )
        if joined:
            clusters[-1] += ch
        else:
            clusters.append(ch)
    return clusters


def _cut_word(word: str, room: int) -> str:
    """The longest grapheme prefix of ``word`` no longer than ``room``."""
    out = ""
    for cluster in _graphemes(word):
        if len(out) + len(cluster) > room:
            break
        out += cluster
    return out


@dataclass(frozen=True)
class _Options:
    ellipsis: bool
    split_words: bool  # may a line's only word be cut mid-word


# A whole word beats an ellipsis; an ellipsis beats nothing. The last
# option is the most permissive: if any option can keep k lines, it can.
_PREFERENCE = (
    _Options(ellipsis=True, split_words=False),
    _Options(ellipsis=False, split_words=False),
    _Options(ellipsis=True, split_words=True),
    _Options(ellipsis=False, split_words=True),
)


@dataclass
class _Choice:
    """What one candidate keeps: atom texts by index, and where ellipses go."""

    kept: dict[int, str]
    ellipsis_after: list[int]  # atom index; -1 - i means "before atom i"
    lines_with_content: int
    lines_needing_content: int


class _Plan:
    """Atoms grouped into lines, with the search over per-line budgets."""

    def __init__(self, atoms: list[Atom]) -> None:
        self.atoms = atoms
        self.partner = pair_tags(atoms)  # type: ignore[arg-type]
        self.lines: list[range] = []
        start = 0
        for i, atom in enumerate([*atoms, Atom(BREAK, "")]):
            if atom.kind == BREAK:
                self.lines.append(range(start, i))
                start = i + 1
        self.line_count = len(self.lines)
        self.lengths = [self._content_length(r) for r in self.lines]
        self.widest = max(self.lengths, default=0)
        # content_after[k]: some line from k on has content
        self.content_after = [any(self.lengths[k:]) for k in range(self.line_count + 1)]

    def _content_length(self, line: range) -> int:
        return sum(len(self.atoms[i].text) for i in line if self.atoms[i].kind not in (OPEN, CLOSE))

    def most_lines(self, max_length: int) -> int:
        """The most leading lines that can all keep some content (at least 1).

        Keeping fewer lines never needs more room, so this is a binary search.
        """
        lo, hi = 1, min(self.line_count, max_length + 1)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.best(mid, _PREFERENCE[-1], max_length) is not None:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def best(self, lines: int, options: _Options, max_length: int) -> str | None:
        """The fullest rendering keeping ``lines`` lines, or None if none fits with content."""
        lo, hi = 0, self.widest
        if len(self._render(self._choose(lines, 0, options))) > max_length:
            return None
        while lo < hi:  # largest per-line budget that fits; length grows with it
            mid = (lo + hi + 1) // 2
            if len(self._render(self._choose(lines, mid, options))) <= max_length:
                lo = mid
            else:
                hi = mid - 1
        choice = self._choose(lines, lo, options)
        if choice.lines_with_content < choice.lines_needing_content:
            return None
        return self._render(choice)

    def _choose(self, lines: int, budget: int, options: _Options) -> _Choice:
        kept: dict[int, str] = {}
        marks: list[int] = []
        with_content = needing = 0
        dropped_later = self.content_after[lines]
        for number, line in enumerate(self.lines[:lines]):
            cut, last = self._fill(line, budget, kept, options.split_words)
            needing += self.lengths[number] > 0
            with_content += last is not None
            if options.ellipsis and (cut or (dropped_later and number == lines - 1)):
                marks.append(last if last is not None else -1 - line.start)
        for line in self.lines[1:lines]:
            kept[line.start - 1] = self.atoms[line.start - 1].text  # the break before it
        self._keep_pairs(kept)
        return _Choice(kept, marks, with_content, needing)

    def _fill(self, line: range, budget: int, kept: dict[int, str], split_words: bool) -> tuple[bool, int | None]:
        """Keep a prefix of the line's content within ``budget``; (was cut, last kept index)."""
        used = 0
        spaces: list[int] = []
        last: int | None = None
        for i in line:
            atom = self.atoms[i]
            if atom.kind in (OPEN, CLOSE):
                continue
            if atom.kind == SPACE:
                spaces.append(i)
                continue
            gap = sum(len(self.atoms[j].text) for j in spaces)
            if used + gap + len(atom.text) > budget:
                if last is None and atom.kind == WORD and split_words:
                    part = _cut_word(atom.text, budget - gap)
                    if part:
                        kept.update({j: self.atoms[j].text for j in spaces})
                        kept[i] = part
                        last = i
                return True, last
            kept.update({j: self.atoms[j].text for j in spaces})
            kept[i] = atom.text
            used += gap + len(atom.text)
            spaces = []
            last = i
        kept.update({j: self.atoms[j].text for j in spaces})
        return False, last

    def _keep_pairs(self, kept: dict[int, str]) -> None:
        """Keep a tag pair exactly when something it wraps is kept."""
        # prefix[i]: kept words and atoms before atom i
        prefix = [0]
        for i, atom in enumerate(self.atoms):
            prefix.append(prefix[-1] + (i in kept and atom.kind in (WORD, ATOM)))
        for opening, closing in self.partner.items():
            if opening < closing and prefix[closing] > prefix[opening + 1]:
                kept[opening] = self.atoms[opening].text
                kept[closing] = self.atoms[closing].text

    def _render(self, choice: _Choice) -> str:
        after = {i for i in choice.ellipsis_after if i >= 0}
        before = {-1 - i for i in choice.ellipsis_after if i < 0}
        out = []
        for i in range(len(self.atoms)):
            if i in before:
                out.append(ELLIPSIS)
            if i in choice.kept:
                out.append(choice.kept[i])
            if i in after:
                out.append(ELLIPSIS)
        if len(self.atoms) in before:
            out.append(ELLIPSIS)
        return "".join(out)
