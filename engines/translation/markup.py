"""Markup in translatable text: placeholders, tags, line breaks and emoji.

Game and media strings carry format placeholders (``{0}``, ``%1$s``), rich
text tags (``<color=#f00>``, ``[b]``), line breaks and emoji that must come
out of translation byte-identical and exactly once. ``find_spans`` finds
them and gives each a kind; tags are paired so an opening tag with its
close can be told from a standalone one. ``protect`` hides these spans
from engines, ``length`` keeps them whole when it shortens a string.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

# Kinds of protected span.
PLACEHOLDER = "placeholder"  # format fields: {0} {{var}} %s %1$s $t(key) [player_name] &amp; {/b}
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
            r"|\{/?[a-z]+=[^{}\n]{1,32}\}|\{/[a-z]+\}"  # Ren'Py text tags: {color=#f00} {size=+2} {/b}
            r"|\$t\([A-Za-z0-9_.:\-]{1,64}(?:,\s*\{[^{}\n]{0,64}\})?\)"  # i18next nesting: $t(key)
            r"|\[[A-Za-z_][\w]*(?:[._][\w]+)+\]"  # Ren'Py interpolation with _ or .: [player_name] [p.name]
            r"|&(?:[A-Za-z]{2,8}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});"  # HTML entities: &amp; &#160; &#x2014;
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
ORDERED_PLACEHOLDER = re.compile("%%|" + _PRINTF.replace(r"(?:\d+\$)?", ""))


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


def markup_counts(text: str) -> Counter[str]:
    """How often each placeholder, tag, line break and emoji occurs in ``text``."""
    return Counter(span.text for span in find_spans(text))
