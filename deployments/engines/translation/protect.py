"""Placeholder and markup protection around any translator engine.

Game and media strings carry format placeholders (``{0}``, ``%1$s``), rich
text tags (``<color=#f00>``, ``[b]``), line breaks and emoji that must come
out of translation byte-identical and exactly once: a lost ``%d`` crashes
the game's formatter, a lost ``</color>`` paints the rest of the screen.

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
then expands sentinels to the original text, so the result always carries
every protected span exactly once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

SENTINEL = "<x{}/>"
# What engines make of a sentinel when they damage it: spaces, case, a lost
# slash, a closing form, HTML escaping.
_LENIENT_SENTINEL = re.compile(r"(?:<|&lt;)\s*/?\s*[xX]\s*(\d+)\s*/?\s*(?:>|&gt;)")

# Kinds of protected span.
PLACEHOLDER = "placeholder"  # format fields: {0} {{var}} %s %1$s
OPEN = "open"  # an opening tag with a matching close: <b> [color=red]
CLOSE = "close"  # its closing tag: </b> [/color]
TAG = "tag"  # a tag without a partner: <br/> <sprite=3> a stray </i>
BREAK = "break"  # a real line break or an escaped one: \n \r\n and the two characters \n
EMOJI = "emoji"
GLOSSARY = "glossary"  # a glossary source term; restores to the target term

_EMOJI_BASE = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u2199\u21a9\u21aa\u231a\u231b\u2328"
    "\u23cf\u23e9-\u23f3\u23f8-\u23fa\u24c2\u25aa\u25ab\u25b6\u25c0\u25fb-\u25fe"
    "\u2600-\u27bf\u2934\u2935\u2b05-\u2b07\u2b1b\u2b1c\u2b50\u2b55\u3030\u303d"
    "\u3297\u3299\U0001f000-\U0001faff"
)
_EMOJI_MOD = "\ufe0e\ufe0f\u20e3\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f"
_EMOJI_ONE = f"[{_EMOJI_BASE}][{_EMOJI_MOD}]*"
EMOJI_PATTERN = (
    r"[\U0001f1e6-\U0001f1ff]{2}"  # flags are two regional indicators
    r"|[0-9#*]\ufe0f?\u20e3"  # keycaps
    rf"|{_EMOJI_ONE}(?:\u200d{_EMOJI_ONE})*"  # ZWJ sequences
)

_PRINTF = r"%(?:\d+\$)?[-+0#']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgGaAcspn@]"
# Named groups give each span its kind; the order settles overlaps.
_SPAN_PATTERN = re.compile(
    "|".join(
        [
            r"(?P<brk>\r\n|\r|\n|\\[nrt])",
            r"(?P<ph>\{\{[^{}\n]{1,64}\}\}"  # {{var}}
            r"|\$\{[A-Za-z0-9_.]{1,64}\}"  # ${var}
            r"|%\{[A-Za-z0-9_]{1,64}\}"  # %{var}
            r"|%\([A-Za-z0-9_]{1,64}\)[-+0#]*\d*(?:\.\d+)?[diouxXeEfFgGcrs]"  # %(name)s
            r"|\{[A-Za-z0-9_.\-]{0,64}(?::[^{}\n]{0,32})?\}"  # {0} {name} {0:N2}
            rf"|%%|{_PRINTF})",
            r"(?P<tag></?[A-Za-z][\w:.\-]*(?:\s*=\s*[^<>\n]*|\s+[^<>\n]*)?/?>"  # <b> <color=#f00> </b>
            r"|\[/?(?i:b|i|u|s|color|size|font|url|img|quote|code|center|left|right|sup|sub"
            r"|list|spoiler|outline|shake|wave|rainbow)(?:=[^\[\]\n]*)?\]"  # [b] [color=red] [/b]
            r"|\[[A-Za-z][\w\-]*=[^\[\]\n]*\]|\[/[A-Za-z][\w\-]*\])",  # other [tag=value] [/tag]
            rf"(?P<emoji>{EMOJI_PATTERN})",
        ]
    )
)
_VOID_TAGS = frozenset({"br", "hr", "img", "sprite", "input", "wbr", "meta", "link", "space", "*"})
# Non-positional printf fields are filled left to right, so their order in
# the translation is part of their meaning; numbered ones may move freely.
_ORDERED_PLACEHOLDER = re.compile("%%|" + _PRINTF.replace(r"(?:\d+\$)?", ""))


@dataclass(frozen=True)
class Span:
    """One protected stretch of the source text.

    Attributes:
        start, end: offsets in the source.
        kind: one of the kind constants above.
        text: the source text of the span.
        name: lower-cased tag name for OPEN/CLOSE/TAG spans, else "".
        replacement: what the span restores to when it differs from ``text``
            (a glossary target term).
    """

    start: int
    end: int
    kind: str
    text: str
    name: str = ""
    replacement: str | None = None

    @property
    def output(self) -> str:
        """The text the span restores to."""
        return self.text if self.replacement is None else self.replacement


def find_spans(text: str) -> list[Span]:
    """Every placeholder, tag, line break and emoji in ``text``, in order.

    Tags are classified after pairing: an opening tag without a matching
    close (or a void tag like ``<br>``) is a standalone TAG.
    """
    spans = [_classify(m) for m in _SPAN_PATTERN.finditer(text)]
    return _pair_kinds(spans)


def _classify(match: re.Match[str]) -> Span:
    kind = match.lastgroup
    text = match.group()
    if kind == "brk":
        return Span(match.start(), match.end(), BREAK, text)
    if kind == "ph":
        return Span(match.start(), match.end(), PLACEHOLDER, text)
    if kind == "emoji":
        return Span(match.start(), match.end(), EMOJI, text)
    name = re.match(r"[<\[]/?\s*([^\s=/>\]]*)", text).group(1).lower()  # type: ignore[union-attr]
    closing = text[1] == "/"
    self_closing = text.endswith("/>") or name in _VOID_TAGS
    tag_kind = CLOSE if closing else TAG if self_closing else OPEN
    return Span(match.start(), match.end(), tag_kind, text, name=name)


def _pair_kinds(spans: list[Span]) -> list[Span]:
    """Demote OPEN/CLOSE spans that have no partner to standalone TAGs."""
    partner = pair_tags(spans)
    return [s if s.kind not in (OPEN, CLOSE) or i in partner else _as_tag(s) for i, s in enumerate(spans)]


def _as_tag(span: Span) -> Span:
    return Span(span.start, span.end, TAG, span.text, span.name, span.replacement)


def pair_tags(spans: Sequence[Span]) -> dict[int, int]:
    """Map each paired OPEN index to its CLOSE index and back.

    A closing tag matches the nearest open tag of the same name (and
    the same bracket style); open tags skipped over stay unpaired.
    """
    stack: list[int] = []
    partner: dict[int, int] = {}
    for i, span in enumerate(spans):
        if span.kind == OPEN:
            stack.append(i)
        elif span.kind == CLOSE:
            for depth in range(len(stack) - 1, -1, -1):
                j = stack[depth]
                if spans[j].name == span.name and spans[j].text[0] == span.text[0]:
                    partner[j], partner[i] = i, j
                    del stack[depth:]
                    break
    return partner


# --- protect -------------------------------------------------------------------


@dataclass(frozen=True)
class Protected:
    """A text with its spans swapped for sentinels.

    Attributes:
        source: the original text.
        text: what the engine gets; sentinel ``i`` stands for ``spans[i]``.
        spans: the protected spans, in source order.
        offsets: where each sentinel starts in ``text``.
    """

    source: str
    text: str
    spans: tuple[Span, ...]
    offsets: tuple[int, ...]


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


# --- restore ---------------------------------------------------------------------


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


@dataclass(frozen=True)
class Restored:
    """The final text and how much repair it took."""

    text: str
    report: RepairReport


Unit = str | int  # one character of engine output, or a sentinel number


def restore(output: str, protected: Protected) -> Restored:
    """Expand sentinels in ``output`` back to their spans, repairing first."""
    report = RepairReport(total=len(protected.spans))
    units = _read_units(output, protected, report)
    _insert_missing(units, protected, report)
    _restore_order(units, protected, report)
    return Restored(_expand(units, protected), report)


def _read_units(output: str, protected: Protected, report: RepairReport) -> list[Unit]:
    """Engine output as characters and sentinel numbers, damage undone.

    Every line break of the source was protected, so a real one in the
    output was invented by the engine and becomes a space.
    """
    output = re.sub(r"\r\n|\r|\n", " ", output)
    units: list[Unit] = []
    seen: set[int] = set()
    pos = 0
    for match in _LENIENT_SENTINEL.finditer(output):
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


def _insert_missing(units: list[Unit], protected: Protected, report: RepairReport) -> None:
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


def _restore_order(units: list[Unit], protected: Protected, report: RepairReport) -> None:
    """Reorder the spans whose order carries meaning back into source order.

    Non-positional printf fields are filled left to right; tags must nest
    as they did; line breaks keep their sequence of ``\\n`` and ``\\r\\n``.
    Other placeholders are free to move with the words they belong to.
    """
    spans = protected.spans
    groups = [
        [i for i, s in enumerate(spans) if s.kind == PLACEHOLDER and _ORDERED_PLACEHOLDER.fullmatch(s.text)],
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


def _expand(units: list[Unit], protected: Protected) -> str:
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


# --- verify ----------------------------------------------------------------------


def markup_counts(text: str) -> Counter[str]:
    """How often each placeholder, tag, line break and emoji occurs in ``text``."""
    return Counter(span.text for span in find_spans(text))


def verify(restored: str, protected: Protected) -> bool:
    """True when ``restored`` holds exactly the source's markup plus the glossary terms."""
    expected = markup_counts(protected.source)
    for span in protected.spans:
        if span.kind == GLOSSARY:
            expected.update(markup_counts(span.output))
            if span.output not in restored:
                return False
    return markup_counts(restored) == expected
