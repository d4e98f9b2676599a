"""TTML cues (IMSC, EBU-TT-D, DFXP) from an uploaded document, through ttconv's IMSC reader.

The document comes from a client, so it is parsed here with expat before ttconv sees it:

* a ``<!DOCTYPE`` or ``<!ENTITY`` anywhere is refused before parsing, and expat's declaration
  handlers refuse them again: no entity expansion (billion laughs) and no external entities;
* expat reports the line of a syntax error, and the line of every element, which ttconv's model
  does not keep; the tree is built with ``ElementTree.TreeBuilder``, which ttconv reads.

``ttconv.imsc.reader.to_model`` then resolves the timing (``begin``, ``end``, ``dur``, ``seq`` and
``par`` containers, tick and frame rates): each model element's times are offsets from its parent's
begin, so a ``<p>`` starts at the sum of its ancestors' begins plus its own, and ends at the earliest
end along that chain (a ``<p>`` timed by its spans alone ends with its last span). Three things are
done to the tree before ttconv reads it:

* every ``begin``, ``end`` and ``dur`` is checked with ttconv's own time parser, to name the line of
  one it cannot read (ttconv logs it and goes on as if it were absent);
* each ``<p>`` is tagged with a private-use ``xml:lang`` (``x-cue-N``, BCP 47) that leads back from
  the model to its line; nothing here reads the language;
* a ``<body>`` or ``<div>`` in a parallel container with neither ``end`` nor ``dur`` gets an open
  ``dur``: ttconv 1.2 takes such a container's implicit end from its children's ends without adding
  its own ``begin`` (the offset it adds in sequential containers), so ``<div begin="10s">`` around
  ``<p begin="1s" end="2s">`` would end at 10s and be dropped. An implicit end never cuts a child
  short, so an open one reads the same.

A cue's text is its spans' text, whitespace collapsed, with a line break at each ``<br/>``; ruby
annotations (``<rt>``, ``<rp>``) are left out.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from fractions import Fraction
from xml.parsers import expat

from ttconv import model
from ttconv.imsc import attributes as imsc_attributes
from ttconv.imsc.reader import to_model

from engines.text.subtitle_cues import FORMATS_READ, BadSubtitleFile, InputCue, quoted, tidy_lines, timed_cue
from engines.text.subtitle_speakers import split_speaker

TTML = "http://www.w3.org/ns/ttml"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
TIME_ATTRIBUTES = ("begin", "end", "dur")
_CUE_TAG = "x-cue-"
_OPEN_DURATION = "100000h"
_OPEN_SECONDS = Fraction(100000 * 3600)
_DECLARATIONS = ("<!DOCTYPE", "<!ENTITY")
_WHITESPACE = re.compile(r"\s+")


def read_ttml(text: str) -> list[InputCue]:
    """The cues of a TTML document, in document order, cues without text left out."""
    refuse_declarations(text)
    root, lines = parse_xml(text)
    if root.tag != f"{{{TTML}}}tt":
        raise BadSubtitleFile(None, f"the file is XML but not TTML; subtitle files are read as {FORMATS_READ}.")
    check_times(root, lines)
    paragraphs = tag_paragraphs(root)
    refuse_loose_paragraphs(root, paragraphs, lines)
    open_implicit_containers(root)
    try:
        document = to_model(ET.ElementTree(root))
    except Exception as error:  # ttconv raises for what it does not support (clock time base, PAL drop frames)
        raise BadSubtitleFile(None, "the TTML document uses timing this service does not read.") from error
    body = document.get_body() if document is not None else None
    in_model = [p for p in body.dfs_iterator() if isinstance(p, model.P)] if body is not None else []
    refuse_dropped_paragraphs(paragraphs, {p.get_lang() for p in in_model}, lines)
    cues = (paragraph_cue(p, paragraphs, lines) for p in in_model)
    return [cue for cue in cues if cue is not None]


def refuse_declarations(text: str) -> None:
    """DOCTYPE and ENTITY declarations are refused before any parsing, at the line where they are."""
    upper = text.upper()
    found = [upper.find(declaration) for declaration in _DECLARATIONS]
    first = min((at for at in found if at >= 0), default=-1)
    if first >= 0:
        raise BadSubtitleFile(text.count("\n", 0, first) + 1, _DECLARATION_REFUSED)


_DECLARATION_REFUSED = "the document declares a DOCTYPE or entities, which uploaded TTML must not."


def parse_xml(text: str) -> tuple[ET.Element, dict[ET.Element, int]]:
    """The element tree, and the line each element starts at; a syntax error names its line."""
    builder = ET.TreeBuilder()
    lines: dict[ET.Element, int] = {}
    parser = expat.ParserCreate(encoding="UTF-8", namespace_separator=" ")
    parser.buffer_text = True

    def start(name: str, attributes: dict[str, str]) -> None:
        element = builder.start(clark_name(name), {clark_name(key): value for key, value in attributes.items()})
        lines[element] = parser.CurrentLineNumber

    def refuse(*_: object) -> None:
        raise BadSubtitleFile(parser.CurrentLineNumber, _DECLARATION_REFUSED)

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda name: builder.end(clark_name(name))
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    try:
        parser.Parse(text.encode("utf-8"), True)
    except expat.ExpatError as error:
        raise BadSubtitleFile(error.lineno, "the document is not well-formed XML.") from error
    return builder.close(), lines


def clark_name(name: str) -> str:
    """expat's ``namespace local`` as ElementTree's ``{namespace}local``."""
    namespace, _, local = name.rpartition(" ")
    return f"{{{namespace}}}{local}" if namespace else local


def check_times(root: ET.Element, lines: dict[ET.Element, int]) -> None:
    """Every ``begin``, ``end`` and ``dur`` must be a time ttconv reads (it would log and ignore it)."""
    context = imsc_attributes.TemporalAttributeParsingContext(
        frame_rate=imsc_attributes.FrameRateAttribute.extract(root),
        tick_rate=imsc_attributes.TickRateAttribute.extract(root),
    )
    for element in root.iter():
        for name in TIME_ATTRIBUTES:
            value = element.get(name)
            if value is None:
                continue
            try:
                imsc_attributes.parse_time_expression(context, value, False)
            except ValueError as error:
                raise BadSubtitleFile(lines[element], f'the time {name}="{quoted(value)}" cannot be read.') from error


def tag_paragraphs(root: ET.Element) -> list[ET.Element]:
    """The body's ``<p>`` elements in document order, each tagged with its index (see the module docstring)."""
    body = root.find(f"{{{TTML}}}body")
    paragraphs = list(body.iter(f"{{{TTML}}}p")) if body is not None else []
    for index, paragraph in enumerate(paragraphs):
        paragraph.set(XML_LANG, f"{_CUE_TAG}{index}")
    return paragraphs


def refuse_loose_paragraphs(root: ET.Element, paragraphs: list[ET.Element], lines: dict[ET.Element, int]) -> None:
    """A ``<p>`` goes in a ``<div>``; ttconv drops the whole body's content (logging why) when one does not."""
    in_divs = {id(child) for div in root.iter(f"{{{TTML}}}div") for child in div}
    loose = [paragraph for paragraph in paragraphs if id(paragraph) not in in_divs]
    if loose:
        raise BadSubtitleFile(lines[loose[0]], "the <p> is not inside a <div>, where TTML cues go.")


def open_implicit_containers(root: ET.Element) -> None:
    """An open ``dur`` for each ``<body>`` and ``<div>`` whose end ttconv would compute wrongly (module docstring)."""
    parents = {child: parent for parent in root.iter() for child in parent}
    for container in root.iter():
        if container.tag not in (f"{{{TTML}}}body", f"{{{TTML}}}div") or {"end", "dur"} & set(container.attrib):
            continue
        if "seq" not in (container.get("timeContainer"), parents[container].get("timeContainer")):
            container.set("dur", _OPEN_DURATION)


def refuse_dropped_paragraphs(paragraphs: list[ET.Element], kept: set[str], lines: dict[ET.Element, int]) -> None:
    """ttconv leaves out a ``<p>`` (or a ``<div>``) that ends as it begins: one with text is refused."""
    for index, paragraph in enumerate(paragraphs):
        if f"{_CUE_TAG}{index}" not in kept and "".join(paragraph.itertext()).strip():
            raise BadSubtitleFile(lines[paragraph], f"the cue ends the moment it starts ({written_times(paragraph)}).")


def paragraph_cue(p: model.P, paragraphs: list[ET.Element], lines: dict[ET.Element, int]) -> InputCue | None:
    """The cue of one ``<p>``: its absolute times, its text, its speaker label; None when it has no text."""
    element = paragraphs[int(p.get_lang().removeprefix(_CUE_TAG))]
    speaker, rest = split_speaker(tidy_lines(paragraph_text(p)))
    text = tidy_lines(rest)
    if not text:
        return None
    begin, end = absolute_interval(p)
    end = end if end is not None else latest_end(p, begin)
    written = written_times(element)
    if end is None:
        raise BadSubtitleFile(lines[element], "the cue has no end: neither it nor an enclosing element has an end or a dur.")
    return timed_cue(float(begin), float(end), text, speaker, lines[element], written)


def written_times(paragraph: ET.Element) -> str:
    """The ``<p>``'s own timing attributes as the document wrote them."""
    times = [f'{name}="{quoted(value)}"' for name in TIME_ATTRIBUTES if (value := paragraph.get(name)) is not None]
    return " ".join(times) or "times set on an enclosing element"


def absolute_interval(element: model.ContentElement) -> tuple[Fraction, Fraction | None]:
    """Begin and end in seconds from the document's start; the end is None when nothing on the chain ends
    (the open durations given to containers do not count)."""
    offset, ends = Fraction(0), []
    for node in reversed(list(ancestry(element))):
        parent_begin, begin, end = offset, node.get_begin() or Fraction(0), node.get_end()
        offset = parent_begin + begin
        if end is not None and end - begin != _OPEN_SECONDS:
            ends.append(parent_begin + end)
    return offset, min(ends, default=None)


def latest_end(element: model.ContentElement, begin: Fraction) -> Fraction | None:
    """The latest end among the element's descendants (``begin`` is the element's own), for a ``<p>`` timed by its spans."""
    ends = []
    for child in element:
        child_end = child.get_end()
        if child_end is None:
            child_end = latest_end(child, begin + (child.get_begin() or 0))
        else:
            child_end += begin
        if child_end is not None:
            ends.append(child_end)
    return max(ends, default=None)


def ancestry(element: model.ContentElement | None) -> Iterator[model.ContentElement]:
    """The element, its parent, and so on up to the body."""
    while element is not None:
        yield element
        element = element.parent()


def paragraph_text(element: model.ContentElement) -> str:
    """The element's text: text nodes with their whitespace collapsed, ``\\n`` for ``<br/>``, no ruby annotations."""
    if isinstance(element, model.Text):
        return _WHITESPACE.sub(" ", element.get_text())
    if isinstance(element, model.Br):
        return "\n"
    if isinstance(element, model.Rt | model.Rp | model.Rtc):
        return ""
    return "".join(paragraph_text(child) for child in element)
