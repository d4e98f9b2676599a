"""Line wrapping: tokens of one cue into at most two balanced lines.

A cue that fits on one line stays on one line. Otherwise the break is chosen
among all positions that keep both lines within the limit, preferring lines
of equal length, then a break after punctuation, then a bottom-heavy shape
(shorter top line), which is how broadcast subtitles are set. Given the text's
language, breaks inside a phrase (after an article, a preposition or a subject
pronoun, between a first and a last name) cost more and breaks before a
conjunction less (``linebreaks.break_cost``, word lists per language).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.specs.video import DEFAULT_MAX_LINE_CHARS
from pipelines.subtitles.linebreaks import break_cost
from pipelines.subtitles.tokens import Token, text_tokens

#: Weight of a linguistic break cost, in lines: a break after an article costs a fifth of a line in balance.
LINGUISTIC_WEIGHT = 0.2


def join(tokens: Sequence[Token]) -> str:
    """The text of tokens set on one line."""
    parts: list[str] = []
    for k, token in enumerate(tokens):
        parts.append((" " if k and token.space else "") + token.text)
    return "".join(parts)


def width(tokens: Sequence[Token]) -> int:
    """Visible length of ``join(tokens)``."""
    return sum(t.size + (1 if k and t.space else 0) for k, t in enumerate(tokens))


class LineFitter:
    """Greedy first-fit line filling, one token at a time.

    First-fit uses the fewest lines possible for a given token order, so it
    answers "do these tokens fit in ``max_lines`` lines?" in O(1) per token.
    """

    def __init__(self, max_chars: int, max_lines: int) -> None:
        self.max_chars = max_chars
        self.max_lines = max_lines
        self.lines = 1
        self.current = 0

    def add(self, token: Token) -> bool:
        """Place ``token``; False once the tokens no longer fit."""
        needed = self.current + (1 if self.current and token.space else 0) + token.size
        if self.current and needed > self.max_chars:
            self.lines += 1
            needed = token.size
        self.current = needed
        return self.lines <= self.max_lines and needed <= self.max_chars


def greedy_lines(tokens: Sequence[Token], max_chars: int) -> list[list[Token]]:
    """First-fit lines, as many as needed."""
    lines: list[list[Token]] = [[]]
    for token in tokens:
        if lines[-1] and width([*lines[-1], token]) > max_chars:
            lines.append([])
        lines[-1].append(token)
    return [line for line in lines if line]


def balance(tokens: Sequence[Token], max_chars: int, max_lines: int = 2, language: str | None = None) -> tuple[str, ...]:
    """Lines for one cue's tokens, balanced when two are needed.

    Tokens that need more than ``max_lines`` lines (never the case for cues
    made by the segmenter) fall back to first-fit lines.
    """
    if not tokens:
        return ()
    if width(tokens) <= max_chars:
        return (join(tokens),)
    split = _best_split(tokens, max_chars, language) if max_lines >= 2 else None
    if split is None:
        return tuple(join(line) for line in greedy_lines(tokens, max_chars))
    return join(tokens[:split]), join(tokens[split:])


def _best_split(tokens: Sequence[Token], max_chars: int, language: str | None) -> int | None:
    """Index of the first token of line two with the lowest cost, or None if none fits."""
    best: tuple[float, int] | None = None
    total = width(tokens)
    top = 0
    for k in range(1, len(tokens)):
        top += tokens[k - 1].size + (1 if k - 1 and tokens[k - 1].space else 0)
        bottom = total - top - (1 if tokens[k].space else 0)
        if top > max_chars or bottom > max_chars:
            continue
        cost = _split_cost(tokens[k - 1], top, bottom, max_chars)
        if language is not None and not (tokens[k - 1].label or tokens[k - 1].sentence_end or tokens[k - 1].clause_end):
            cost += LINGUISTIC_WEIGHT * max_chars * break_cost(tokens[k - 1].text, tokens[k].text, language)
        if best is None or cost < best[0]:
            best = (cost, k)
    return None if best is None else best[1]


def _split_cost(last: Token, top: int, bottom: int, max_chars: int) -> float:
    cost = float(abs(top - bottom))
    if last.sentence_end or last.clause_end:
        cost -= 0.3 * max_chars
    if top > bottom:
        cost += 0.5
    if last.glue:
        cost += max_chars
    return cost


def wrap_text(text: str, max_chars: int = DEFAULT_MAX_LINE_CHARS, max_lines: int = 2) -> tuple[str, ...]:
    """Wrap plain text into lines of at most ``max_chars`` visible characters.

    Balanced when the text fits in ``max_lines`` lines; otherwise returns as
    many first-fit lines as needed (use ``fit_text`` to split it in time
    instead). Words are never broken unless longer than a line.
    """
    return balance(text_tokens(text, max_chars), max_chars, max_lines)
