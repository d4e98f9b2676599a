"""What goes through an ``apertium`` process: lines in Apertium's stream format, framed for null-flush batching.

Batching uses Apertium's null-flush mode (``-z``): each chunk ends with a NUL
byte, every program in the pipeline resets its state and echoes the NUL, so
chunks never influence each other and the output splits back exactly. The
input is written in Apertium's stream format (``-f none``) so special
characters are escaped by us and restored by us, and apertium's
unknown-word markers (``*``, ``#``, ``@``) can be told apart from the same
characters in the user's text (those travel inside superblanks).

A segment is cut into lines first (``split_segment``): each line is
translated on its own and keeps its surrounding spaces.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# --- Apertium stream format -------------------------------------------------

# Characters with a meaning in the stream format, escaped as apertium-destxt does.
_STREAM_SPECIAL = frozenset("\\[]^$/<>{}")
# Characters apertium uses as markers (unknown word, generation error,
# missing bilingual entry) or post-generation triggers; the user's own copies
# travel inside superblanks so any unescaped one in the output is a marker.
_MARKERS = frozenset("*#@~")
_SUPERBLANK_SPACE = re.compile(r"\s{2,}|[^\S ]")
# Apertium keeps the blank of a word it drops ("I have" -> " tengo"),
# leaving double spaces the source never had.
_DOUBLE_SPACE = re.compile(r" {2,}")


def encode_stream(text: str) -> str:
    """Write ``text`` in Apertium stream format (what ``-f none`` expects)."""
    out: list[str] = []
    pos = 0
    for match in _SUPERBLANK_SPACE.finditer(text):
        out.append(_encode_plain(text[pos : match.start()]))
        out.append("[" + _escape(match.group()) + "]")
        pos = match.end()
    out.append(_encode_plain(text[pos:]))
    return "".join(out)


def _encode_plain(text: str) -> str:
    return "".join(f"[{ch}]" if ch in _MARKERS else f"\\{ch}" if ch in _STREAM_SPECIAL else ch for ch in text)


def _escape(text: str) -> str:
    return "".join(f"\\{ch}" if ch in _STREAM_SPECIAL else ch for ch in text)


def decode_stream(stream: str) -> str:
    """Turn pipeline output back into plain text, dropping apertium's markers."""
    out: list[str] = []
    in_blank = False
    i = 0
    while i < len(stream):
        ch = stream[i]
        if ch == "\\" and i + 1 < len(stream):
            out.append(stream[i + 1])
            i += 2
            continue
        if ch == "[" and not in_blank:
            in_blank = True
        elif ch == "]" and in_blank:
            in_blank = False
        elif in_blank or ch not in _MARKERS:
            out.append(ch)
        i += 1
    return "".join(out)


def collapse_spaces(translated: str, source: str) -> str:
    """``translated`` without the double spaces apertium left, unless ``source`` had some."""
    return translated if "  " in source else _DOUBLE_SPACE.sub(" ", translated)


# --- Null-flush framing ------------------------------------------------------

# Like apertium-destxt, every chunk ends in a period and an empty superblank:
# the tagger then sees a sentence end, and a final punctuation mark is not
# swallowed at the NUL.
_SENTENCE_END = ".[]"


def frame(line: str) -> str:
    """One line as a null-flush chunk."""
    return encode_stream(line) + _SENTENCE_END + "\0"


def unframe(piece: str) -> str | None:
    """The plain text of one output chunk; None when its framing is damaged.

    Only the framing ever writes an empty superblank, so exactly one ``[]``
    proves the chunk is complete and was not merged with its neighbour.
    """
    if piece.count("[]") != 1:
        return None
    cut = piece.rfind(_SENTENCE_END)
    if cut != -1:
        piece = piece[:cut] + piece[cut + len(_SENTENCE_END) :]
    return decode_stream(piece).strip()


# --- Chunking ------------------------------------------------------------------

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Chunk:
    """One line of one segment: its core goes to apertium, its edges do not.

    Lines are translated on their own so a translation never moves words
    from one line to another, and each line keeps its surrounding spaces.
    """

    lead: str
    core: str
    trail: str


def split_segment(text: str) -> tuple[list[Chunk], list[str]]:
    """A segment's chunks (one per line) and the line breaks between them."""
    lines = _LINE_BREAK.split(text)
    breaks = _LINE_BREAK.findall(text)
    chunks = []
    for line in lines:
        core = line.strip()
        start = line.find(core) if core else len(line)
        chunks.append(Chunk(line[:start], core, line[start + len(core) :]))
    return chunks, breaks


def join_segment(chunks: Sequence[Chunk], cores: Sequence[str], breaks: Sequence[str]) -> str:
    """Inverse of ``split_segment`` with translated cores."""
    lines = [c.lead + core.strip() + c.trail for c, core in zip(chunks, cores)]
    out = lines[0]
    for brk, line in zip(breaks, lines[1:]):
        out += brk + line
    return out
