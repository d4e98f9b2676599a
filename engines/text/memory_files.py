"""Translation-memory files that clients upload, read into (source, target) text pairs for one language pair.

``read_memory_file`` takes the bytes of a TMX (1.1 to 1.4), XLIFF 1.2 or 2.0, CSV or TSV file and the
memory's languages, and returns its pairs in file order. A file it cannot read raises
:class:`BadMemoryFile`, whose message is one line in the service's words naming the first bad line or
unit where there is one (never a library's text).

The XML formats are read by translate-toolkit (``translate.storage.tmx``, ``xliff``, ``xliff2``): it
knows each format's structure (XLIFF groups, XLIFF 2.0 segments, TMX's old ``lang`` attribute) and
parses with a parser safe for untrusted input (no entities resolved, no network). What is done here:
which ``<tuv>`` of a multilingual TMX unit is the source and which the target (:func:`language_rank`:
the memory's language, its primary code, or a variant of it, never another region's variant), TMX
segment text without its inline native codes (``<bpt>``, ``<ept>``, ``<ph>``, ``<it>``, ``<ut>``), and
the check that an XLIFF file's declared languages are the memory's. CSV and TSV are two columns,
``source`` and ``target``, read by Python's ``csv`` module (translate-toolkit's CSV store expects its
own location/source/target layout); an optional first row ``source,target`` (any case) or the two
language codes is a header.

Units without text on either side (untranslated XLIFF units, TMX units lacking one of the languages)
are skipped and counted; a text that breaks the entry rules (:func:`clean_text`) refuses the file.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Literal

from lxml import etree

__all__ = [
    "MAX_MEMORY_FILE_BYTES",
    "MAX_TEXT_CHARS",
    "BadMemoryFile",
    "MemoryFile",
    "clean_text",
    "language_rank",
    "normalise_source",
    "read_memory_file",
]

MAX_MEMORY_FILE_BYTES = 16 * 1024 * 1024
#: The most characters a source or a target may have.
MAX_TEXT_CHARS = 2000

MemoryFormat = Literal["tmx", "xliff", "csv", "tsv"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_XML_ROOT = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(tmx|xliff)[\s>/]")
_LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
_INLINE_CODES = frozenset({"bpt", "ept", "ph", "it", "ut"})
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
#: Chinese regions and the script each implies, so ``zh-Hant`` fits ``zh-TW`` and not ``zh-CN``.
_IMPLIED_SCRIPT = {"tw": "hant", "hk": "hant", "mo": "hant", "cn": "hans", "sg": "hans"}
_HEADERS = (("source", "target"), ("src", "tgt"))


class BadMemoryFile(ValueError):
    """The file cannot be read; the message is one line naming what is wrong."""


@dataclass(frozen=True)
class MemoryFile:
    """The pairs of one file, in file order (a source may repeat: the later pair wins when stored)."""

    format: MemoryFormat
    pairs: list[tuple[str, str]]
    skipped: int


def normalise_source(text: str) -> str:
    """The form sources are matched in: whitespace runs collapsed to one space, stripped, casefolded."""
    return " ".join(text.split()).casefold()


def clean_text(text: str) -> str:
    """``text`` stripped, line breaks as ``\\n``; ValueError when empty, too long or holding a control character
    other than tab and line break."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise ValueError("is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"is longer than {MAX_TEXT_CHARS} characters")
    found = _CONTROL.search(text)
    if found:
        raise ValueError(f"holds a control character (U+{ord(found.group()):04X})")
    return text


def _subtags(tag: str) -> tuple[str, str | None, str | None]:
    """(primary, script, region) of a language tag, lower case."""
    parts = tag.strip().replace("_", "-").lower().split("-")
    script = next((p for p in parts[1:] if len(p) == 4 and p.isalpha()), None)
    region = next((p for p in parts[1:] if (len(p) == 2 and p.isalpha()) or (len(p) == 3 and p.isdigit())), None)
    return parts[0], script, region


def language_rank(tag: str | None, wanted: str) -> int | None:
    """How well a file's language ``tag`` fits the memory's language ``wanted``: 0 the same, 1 the same language
    (a bare code for a variant, or a variant for a bare code), None not it (another language, or another region's
    variant of it: ``pt-PT`` is not ``pt-BR``)."""
    if not tag:
        return None
    primary, script, region = _subtags(tag)
    want_primary, want_script, want_region = _subtags(wanted)
    if primary != want_primary:
        return None
    want_script = want_script or (_IMPLIED_SCRIPT.get(want_region or "") if primary == "zh" else None)
    if script and want_script and script != want_script:
        return None
    if want_region is None:
        return 0 if region is None else 1
    if region == want_region:
        return 0
    return 1 if region is None else None


def read_memory_file(data: bytes, filename: str | None, source_lang: str, target_lang: str) -> MemoryFile:
    """The (source, target) pairs of a TMX, XLIFF, CSV or TSV file for the memory's languages."""
    if len(data) > MAX_MEMORY_FILE_BYTES:
        raise BadMemoryFile(f"the file is over the {MAX_MEMORY_FILE_BYTES // (1 << 20)} MB limit.")
    head = data[:4096].lstrip(codecs.BOM_UTF8).lstrip()
    root = _XML_ROOT.search(head) if head.startswith(b"<") else None
    if root is not None:
        if root.group(1) == b"tmx":
            return _read_tmx(data, source_lang, target_lang)
        return _read_xliff(data, source_lang, target_lang)
    if head.startswith(b"<"):
        raise BadMemoryFile("an XML file must be TMX (a <tmx> root) or XLIFF (an <xliff> root).")
    suffix = PurePath(filename or "").suffix.lower()
    text = _decode(data)
    if suffix in (".tsv", ".tab") or (suffix != ".csv" and "\t" in text.split("\n", 1)[0]):
        return _read_table(text, "tsv", source_lang, target_lang)
    return _read_table(text, "csv", source_lang, target_lang)


def _parse_xml(store_class: Any, data: bytes, what: str) -> Any:
    try:
        return store_class.parsestring(data)
    except etree.XMLSyntaxError as exc:
        line = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        raise BadMemoryFile(f"the file is not well-formed XML{line}.") from None
    except Exception:  # the library's own refusals (wrong root, unknown version): its wording stays here
        raise BadMemoryFile(f"the file cannot be read as {what}.") from None


def _checked(text: str, side: str, where: str) -> str:
    try:
        return clean_text(text)
    except ValueError as exc:
        raise BadMemoryFile(f"{where}: the {side} text {exc}.") from None


def _read_tmx(data: bytes, source_lang: str, target_lang: str) -> MemoryFile:
    from translate.storage import tmx

    store = _parse_xml(tmx.tmxfile, data, "TMX")
    pairs: list[tuple[str, str]] = []
    skipped = 0
    for unit in store.units:
        where = f"the unit at line {unit.xmlelement.sourceline}"
        variants: list[tuple[str, str]] = []
        for node in unit.getlanguageNodes():
            lang = node.get(_XML_LANG) or node.get("lang")
            if not lang:
                raise BadMemoryFile(f"{where}: a <tuv> has no xml:lang.")
            seg = next((c for c in node if isinstance(c.tag, str) and etree.QName(c).localname == "seg"), None)
            variants.append((lang, _segment_text(seg) if seg is not None else ""))
        source = _best(variants, source_lang, exclude=None)
        target = _best(variants, target_lang, exclude=source)
        if source is None or target is None or not variants[source][1].strip() or not variants[target][1].strip():
            skipped += 1
            continue
        pairs.append((_checked(variants[source][1], "source", where), _checked(variants[target][1], "target", where)))
    return _result("tmx", pairs, skipped, source_lang, target_lang)


def _best(variants: list[tuple[str, str]], wanted: str, exclude: int | None) -> int | None:
    """The index of the variant whose language fits ``wanted`` best (the first of equals)."""
    ranked = [
        (rank, i) for i, (lang, _) in enumerate(variants) if i != exclude and (rank := language_rank(lang, wanted)) is not None
    ]
    return min(ranked)[1] if ranked else None


def _segment_text(node: Any) -> str:
    """The text of a TMX ``<seg>`` (or of an inline element in it) without its native codes."""
    parts = [node.text or ""]
    for child in node:
        if isinstance(child.tag, str) and etree.QName(child).localname not in _INLINE_CODES:
            parts.append(_segment_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _read_xliff(data: bytes, source_lang: str, target_lang: str) -> MemoryFile:
    from translate.storage import xliff, xliff2

    version = re.search(rb"<(?:[\w.-]+:)?xliff\b[^>]*?\bversion\s*=\s*[\"']([^\"']*)", data[:4096])
    two = version.group(1).startswith(b"2") if version else b"xliff:document:2" in data[:4096]
    store = _parse_xml(xliff2.Xliff2File if two else xliff.xlifffile, data, "XLIFF")
    root = store.document.getroot()
    files = [node for node in root.iter() if isinstance(node.tag, str) and etree.QName(node).localname == "file"]
    declared = (
        [(root.get("srcLang"), root.get("trgLang"))]
        if two
        else [(f.get("source-language"), f.get("target-language")) for f in files]
    )
    for source, target in declared:
        if source and language_rank(source, source_lang) is None:
            raise BadMemoryFile(f"the file's source language is {source!r}, not the memory's source_lang {source_lang!r}.")
        if target and language_rank(target, target_lang) is None:
            raise BadMemoryFile(f"the file's target language is {target!r}, not the memory's target_lang {target_lang!r}.")
    pairs: list[tuple[str, str]] = []
    skipped = 0
    for unit in store.units:
        if unit.isheader():
            continue
        source, target = unit.source or "", unit.target or ""
        if not source.strip() or not target.strip():
            skipped += 1
            continue
        node = unit.xmlelement  # an XLIFF 2.0 segment's id is optional: then its unit's
        name = node.get("id") or (node.getparent().get("id") if node.getparent() is not None else None) or ""
        where = f"the unit {name!r} at line {node.sourceline}"
        pairs.append((_checked(source, "source", where), _checked(target, "target", where)))
    return _result("xliff", pairs, skipped, source_lang, target_lang)


def _decode(data: bytes) -> str:
    try:
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return data.decode("utf-16")
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise BadMemoryFile(
            f"line {line}: the file is not text (CSV and TSV files are read as UTF-8, or as UTF-16 with a byte-order mark)."
        ) from None


def _read_table(text: str, kind: Literal["csv", "tsv"], source_lang: str, target_lang: str) -> MemoryFile:
    first_line = text.split("\n", 1)[0]
    if kind == "tsv":
        reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE, strict=True)
    else:
        delimiter = ";" if "," not in first_line and ";" in first_line else ","
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    pairs: list[tuple[str, str]] = []
    line, first = 1, True
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error:
            raise BadMemoryFile(f"line {reader.line_num}: not a {kind.upper()} row (a quote left open?).") from None
        start, line = line, reader.line_num + 1
        while row and not row[-1].strip():
            row.pop()
        if not row:
            continue
        if len(row) != 2:
            raise BadMemoryFile(f"line {start}: expected 2 columns (source, target), found {len(row)}.")
        if first and _is_header(row, source_lang, target_lang):
            first = False
            continue
        first = False
        where = f"line {start}"
        pairs.append((_checked(row[0], "source", where), _checked(row[1], "target", where)))
    return _result(kind, pairs, 0, source_lang, target_lang)


def _is_header(row: list[str], source_lang: str, target_lang: str) -> bool:
    cells = tuple(cell.strip().casefold() for cell in row)
    if cells in _HEADERS:
        return True
    return all(_LANGUAGE_TAG.match(cell) for cell in cells) and (
        language_rank(cells[0], source_lang) is not None and language_rank(cells[1], target_lang) is not None
    )


def _result(fmt: MemoryFormat, pairs: list[tuple[str, str]], skipped: int, source_lang: str, target_lang: str) -> MemoryFile:
    if not pairs:
        if fmt in ("csv", "tsv"):
            raise BadMemoryFile("the file has no rows of source and target text.")
        raise BadMemoryFile(f"no unit of the file has both {source_lang} and {target_lang} text ({skipped} units without).")
    return MemoryFile(fmt, pairs, skipped)
