"""XLIFF 2.0/2.1 through lxml (see `xliff_xml` for why not translate-toolkit).

One entry per `<segment>`: key = the unit `id` when the unit has a single segment, `<unit id>#<n>` (n counted
from 1 in document order) for each segment of a unit with several; `<file id>/` is prefixed where a unit id
repeats across files. `<ignorable>` parts are not entries and are kept. Notes are the unit's `<notes><note>`
texts (shared by all its segments). `translate="no"` on the segment, unit, group or file makes it untranslatable.
The Size and Length Restriction module's `slr:sizeRestriction` (on the unit or an ancestor) is the character
limit when the file's `slr:profiles generalProfile` is `xliff:codepoints` or undeclared. Output: root `trgLang`,
and per translated segment a `<target>` right after its `<source>` with `state="translated"` on the segment.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lxml import etree

from mediatrans_client.l10n import xliff_xml
from mediatrans_client.l10n.entries import Entry, Translated, UnsupportedFileError, language_file, parse_limit

SLR_NS = "urn:oasis:names:tc:xliff:sizerestriction:2.0"


def _segments(tree: etree._ElementTree, name: str) -> list[tuple[str, etree._Element, etree._Element]]:
    """(key, unit, segment) in document order."""
    root = tree.getroot()
    found: list[tuple[str, str, etree._Element, etree._Element]] = []
    for file_id, unit_id, unit in xliff_xml.units(root, "id", "unit", name):
        segments = unit.findall(xliff_xml.tag(root, "segment"))
        for number, segment in enumerate(segments, start=1):
            found.append((file_id, unit_id if len(segments) == 1 else f"{unit_id}#{number}", unit, segment))
    keys = xliff_xml.unique_keys([(f, u) for f, u, _, _ in found], name)
    return [(key, unit, segment) for key, (_, _, unit, segment) in zip(keys, found)]


def _size_limit(unit: etree._Element) -> int | None:
    limit = xliff_xml.inherited(unit, f"{{{SLR_NS}}}sizeRestriction")
    if limit is None:
        return None
    for file_el in unit.iterancestors(xliff_xml.tag(unit, "file")):
        profiles = file_el.find(f"{{{SLR_NS}}}profiles")
        profile = profiles.get("generalProfile") if profiles is not None else None
        if profile not in (None, "xliff:codepoints"):
            return None
    return parse_limit(limit)


def _to_entry(key: str, unit: etree._Element, segment: etree._Element) -> Entry:
    source, _ = xliff_xml.read_text(segment.find(xliff_xml.tag(unit, "source")))
    notes_el = unit.find(xliff_xml.tag(unit, "notes"))
    notes = [] if notes_el is None else ["".join(n.itertext()) for n in notes_el.findall(xliff_xml.tag(unit, "note"))]
    return Entry(
        key=key,
        source=source,
        notes="\n".join(n for n in notes if n),
        translatable=xliff_xml.inherited(segment, "translate") != "no" and source != "",
        max_length=_size_limit(unit),
    )


class Xliff20Catalog:
    def __init__(self, path: Path, tree: etree._ElementTree) -> None:
        self.path = path
        self.entries: list[Entry] = [_to_entry(key, unit, seg) for key, unit, seg in _segments(tree, path.name)]

    def write(self, out_dir: Path, translations: Mapping[str, Mapping[str, Translated]]) -> list[Path]:
        written = []
        translatable = {e.key for e in self.entries if e.translatable}
        for lang, by_key in translations.items():
            tree = xliff_xml.parse(self.path)
            tree.getroot().set("trgLang", lang)
            for key, _, segment in _segments(tree, self.path.name):
                done = by_key.get(key) if key in translatable else None
                if done is None:
                    continue
                source = segment.find(xliff_xml.tag(segment, "source"))
                if source is None:
                    raise UnsupportedFileError(f"{self.path.name}: segment {key!r} has no <source>")
                markup = xliff_xml.read_text(source)[1]
                xliff_xml.set_target(segment, source, done.text, markup)
                segment.set("state", "translated")
            out = language_file(out_dir, lang, self.path.name)
            xliff_xml.save(tree, out)
            written.append(out)
        return written
