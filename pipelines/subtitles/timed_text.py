"""TTML files from cues: IMSC 1.1 Text profile and EBU-TT-D (EBU Tech 3380).

Both are written through ttconv (Sandflow's timed-text conversion library,
which the IMSC HRM validator ``imschrm`` also builds on): the cues become a
``ttconv.model.ContentDocument`` and ``ttconv.imsc.writer.from_model``
serialises it, so escaping, time expressions and style syntax are the
library's and no XML is assembled from strings. ttconv has no EBU-TT-D writer, so ``to_ebu_tt_d`` takes the IMSC tree and
adjusts it with ``xml.etree.ElementTree`` for what EBU-TT-D requires:
``ttp:timeBase="media"`` and ``ttp:cellResolution`` on the root, the
``ebuttm:conformsToStandard`` signal in ``head/metadata``, and referential
styling only (EBU-TT-D forbids ``tts:*`` on content elements, so inline
styles move into ``<style xml:id>`` elements in ``<styling>``).

Cue text follows ``writers``: cues with no text are skipped, bilingual cues
show the source lines first. Each cue is one ``<p>`` timed in media time at
millisecond precision (``hh:mm:ss.mmm``), one ``<span>`` per line with
``<br/>`` between. Characters XML 1.0 cannot carry (most C0 controls) are
dropped; everything else, markup characters included, stays literal. A line
whose first strong character is right-to-left (Arabic, Hebrew) is embedded
right-to-left, as WebVTT players decide per cue, so its punctuation lands
on the correct side.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from fractions import Fraction

from ttconv import model
from ttconv import style_properties as styles
from ttconv.imsc import config as imsc_config
from ttconv.imsc import namespaces as ns
from ttconv.imsc.designators import IMSC_11_TEXT_PROFILE_DESIGNATOR
from ttconv.imsc.writer import from_model

from pipelines.subtitles.timecode import ticks
from pipelines.subtitles.types import Cue

EBUTTM = "urn:ebu:tt:metadata"
EBU_TT_D_STANDARD = "urn:ebu:tt:distribution:2018-04"
REGION_ID = "bottom"

_INVALID_XML_CHARS = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_STYLE_NAMESPACES = (f"{{{ns.TTS}}}", f"{{{ns.EBUTTS}}}")
_PCT = styles.LengthType.Units.pct

# 32 x 15 cells (the TTML default), so 1c is 1/15 of the picture height.
_CELLS = model.CellResolutionType(rows=15, columns=32)
_REGION_STYLE = {
    styles.StyleProperties.Origin: styles.CoordinateType(styles.LengthType(10, _PCT), styles.LengthType(55, _PCT)),
    styles.StyleProperties.Extent: styles.ExtentType(width=styles.LengthType(80, _PCT), height=styles.LengthType(40, _PCT)),
    styles.StyleProperties.DisplayAlign: styles.DisplayAlignType.after,
}
_TEXT_STYLE = {
    styles.StyleProperties.Color: styles.NamedColors.white.value,
    styles.StyleProperties.FontFamily: (styles.GenericFontFamilyType.proportionalSansSerif,),
    styles.StyleProperties.FontSize: styles.LengthType(80, _PCT),
    styles.StyleProperties.LineHeight: styles.LengthType(125, _PCT),
    styles.StyleProperties.TextAlign: styles.TextAlignType.center,
    styles.StyleProperties.LinePadding: styles.LengthType(0.5, styles.LengthType.Units.c),
}
_LINE_STYLE = {styles.StyleProperties.BackgroundColor: styles.ColorType((0, 0, 0, 0xC0))}
_RTL_STYLE = {
    styles.StyleProperties.Direction: styles.DirectionType.rtl,
    styles.StyleProperties.UnicodeBidi: styles.UnicodeBidiType.embed,
}


def to_ttml(cues: Sequence[Cue], language: str) -> str:
    """IMSC 1.1 Text profile document; ``language`` (BCP 47) becomes ``xml:lang``."""
    doc = _document(cues, language)
    doc.set_content_profiles({IMSC_11_TEXT_PROFILE_DESIGNATOR})
    signaling = imsc_config.ContentProfilesSignaling.CONTENT_PROFILES
    root = from_model(doc, imsc_config.IMSCWriterConfiguration(profile_signaling=signaling)).getroot()
    root.set(f"{{{ns.TTP}}}timeBase", "media")
    return _serialise(root)


def to_ebu_tt_d(cues: Sequence[Cue], language: str) -> str:
    """EBU-TT-D document (Tech 3380 v1.0.1); ``language`` becomes ``xml:lang``."""
    root = from_model(_document(cues, language)).getroot()
    root.set(f"{{{ns.TTP}}}timeBase", "media")
    root.set(f"{{{ns.TTP}}}cellResolution", f"{_CELLS.columns} {_CELLS.rows}")
    head = _child(root, "head", 0)
    metadata = ET.Element(_tt("metadata"))
    ET.SubElement(metadata, f"{{{EBUTTM}}}conformsToStandard").text = EBU_TT_D_STANDARD
    head.insert(0, metadata)
    body = _child(root, "body", len(root))
    _lift_styles(body, _child(head, "styling", 1))
    if body.find(f".//{_tt('p')}") is None:
        root.remove(body)  # optional, but when present it needs a <p>; its style stays in <styling>
    return _serialise(root)


def _document(cues: Sequence[Cue], language: str) -> model.ContentDocument:
    doc = model.ContentDocument()
    doc.set_lang(language)
    doc.set_cell_resolution(_CELLS)
    region = model.Region(REGION_ID, doc)
    _set_styles(region, _REGION_STYLE)
    doc.put_region(region)
    body = model.Body(doc)
    _set_styles(body, _TEXT_STYLE)
    div = model.Div(doc)
    body.push_child(div)
    for n, (cue, texts) in enumerate(_shown(cues), start=1):
        div.push_child(_paragraph(doc, region, f"sub{n}", cue, texts))
    doc.set_body(body)
    return doc


def _shown(cues: Sequence[Cue]) -> Iterator[tuple[Cue, list[str]]]:
    """Each cue with any text, and its lines as every writer shows them (``Cue.blocks``), source lines first,
    without characters XML 1.0 cannot carry."""
    for cue in cues:
        original, lines = cue.blocks()
        texts = [text for text in (" ".join(_INVALID_XML_CHARS.sub("", line).split()) for line in (*original, *lines)) if text]
        if texts:
            yield cue, texts


def _paragraph(doc: model.ContentDocument, region: model.Region, pid: str, cue: Cue, texts: list[str]) -> model.P:
    p = model.P(doc)
    p.set_id(pid)
    p.set_region(region)
    p.set_begin(_media_time(cue.start))
    p.set_end(_media_time(cue.end))
    for k, text in enumerate(texts):
        if k:
            p.push_child(model.Br(doc))
        p.push_child(_line(doc, text))
    return p


def _line(doc: model.ContentDocument, text: str) -> model.Span:
    span = model.Span(doc)
    _set_styles(span, _LINE_STYLE)
    if _is_rtl(text):
        _set_styles(span, _RTL_STYLE)
    span.push_child(model.Text(doc, text))
    return span


def _set_styles(element: model.ContentElement, values: dict) -> None:
    for prop, value in values.items():
        element.set_style(prop, value)


def _media_time(seconds: float) -> Fraction:
    """Whole milliseconds, rounded like SRT/VTT, so every format agrees on each cue's times."""
    return Fraction(ticks(seconds, 1000), 1000)


def _is_rtl(text: str) -> bool:
    """Whether the first strong character is right-to-left (Unicode bidi rule P2)."""
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return False


def _tt(name: str) -> str:
    return f"{{{ns.TTML}}}{name}"


def _child(parent: ET.Element, name: str, index: int) -> ET.Element:
    """``parent``'s ``name`` child, created at ``index`` when missing."""
    found = parent.find(_tt(name))
    if found is None:
        found = ET.Element(_tt(name))
        parent.insert(index, found)
    return found


def _lift_styles(body: ET.Element, styling: ET.Element) -> None:
    """Move the ``tts:*``/``ebutts:*`` attributes in ``body`` into shared ``<style>`` elements."""
    ids: dict[tuple[tuple[str, str], ...], str] = {}
    for element in body.iter():
        props = tuple(sorted((k, v) for k, v in element.attrib.items() if k.startswith(_STYLE_NAMESPACES)))
        if not props:
            continue
        if props not in ids:
            ids[props] = f"s{len(ids) + 1}"
            ET.SubElement(styling, _tt("style"), {f"{{{ns.XML}}}id": ids[props], **dict(props)})
        for key, _ in props:
            del element.attrib[key]
        element.set("style", ids[props])


def _serialise(root: ET.Element) -> str:
    ET.register_namespace("ebuttm", EBUTTM)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
