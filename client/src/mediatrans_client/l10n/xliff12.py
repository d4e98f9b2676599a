"""XLIFF 1.2 through lxml (see `xliff_xml` for why not translate-toolkit).

Key = the trans-unit `id` (`<file original or index>/<id>` when the same id appears in several `<file>`s). Notes
are the `<note>` texts; `translate="no"` on the unit or an enclosing group makes it untranslatable; `maxwidth` with
`size-unit="char"` is the character limit (the default size unit, pixel, is not a character count). Output: every
`<file>` gets `target-language`, each translated unit a `<target state="translated">` right after its `<source>`
(or `<seg-source>`); an existing target is refilled in place. Untranslatable units are left as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lxml import etree

from mediatrans_client.l10n import xliff_xml
from mediatrans_client.l10n.entries import Entry, Translated, UnsupportedFileError, language_file, parse_limit


def _units(tree: etree._ElementTree, name: str) -> list[tuple[str, etree._Element, bool]]:
    """(key, trans-unit, source has inline markup) in document order."""
    found = xliff_xml.units(tree.getroot(), "original", "trans-unit", name)
    keys = xliff_xml.unique_keys([(f, u) for f, u, _ in found], name)
    result = []
    for key, (_, _, unit) in zip(keys, found):
        source = unit.find(xliff_xml.tag(unit, "source"))
        if source is None:
            raise UnsupportedFileError(f"{name}: trans-unit {key!r} has no <source>")
        result.append((key, unit, xliff_xml.read_text(source)[1]))
    return result


def _to_entry(key: str, unit: etree._Element) -> Entry:
    source, _ = xliff_xml.read_text(unit.find(xliff_xml.tag(unit, "source")))
    notes = ["".join(note.itertext()) for note in unit.findall(xliff_xml.tag(unit, "note"))]
    max_length = parse_limit(unit.get("maxwidth")) if unit.get("size-unit") == "char" else None
    return Entry(
        key=key,
        source=source,
        notes="\n".join(n for n in notes if n),
        translatable=xliff_xml.inherited(unit, "translate") != "no" and source != "",
        max_length=max_length,
    )


class Xliff12Catalog:
    def __init__(self, path: Path, tree: etree._ElementTree) -> None:
        self.path = path
        self.entries: list[Entry] = [_to_entry(key, unit) for key, unit, _ in _units(tree, path.name)]

    def write(self, out_dir: Path, translations: Mapping[str, Mapping[str, Translated]]) -> list[Path]:
        written = []
        translatable = {e.key for e in self.entries if e.translatable}
        for lang, by_key in translations.items():
            tree = xliff_xml.parse(self.path)
            root = tree.getroot()
            for file_el in root.iter(xliff_xml.tag(root, "file")):
                file_el.set("target-language", lang)
            for key, unit, markup in _units(tree, self.path.name):
                done = by_key.get(key) if key in translatable else None
                if done is None:
                    continue
                anchor = unit.find(xliff_xml.tag(unit, "seg-source"))
                if anchor is None:
                    anchor = unit.find(xliff_xml.tag(unit, "source"))
                target = xliff_xml.set_target(unit, anchor, done.text, markup)
                target.set("state", "translated")
            out = language_file(out_dir, lang, self.path.name)
            xliff_xml.save(tree, out)
            written.append(out)
        return written
