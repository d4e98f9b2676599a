"""The sentinel that stands in for a protected span, and the text that carries them.

A sentinel is the XLIFF-style inline tag ``<x0/>``, numbered by span (see
``protect`` for why this shape). Engines damage it in a few known ways,
which ``LENIENT_SENTINEL`` still reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engines.translation.markup import Span

SENTINEL = "<x{}/>"
#: What engines make of a sentinel when they damage it: spaces, case, a lost
#: slash, a closing form, HTML escaping. Group 1 is the sentinel's number.
LENIENT_SENTINEL = re.compile(r"(?:<|&lt;)\s*/?\s*[xX]\s*(\d+)\s*/?\s*(?:>|&gt;)")


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
