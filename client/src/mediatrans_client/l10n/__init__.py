"""Localization files of game studios, read into entries and written back translated.

`load(path, source_lang)` picks the format from the suffix and returns a `Catalog`: its `entries` to translate and
`write(out_dir, translations)` to write one file per target language (PO, XLIFF, JSON: `out_dir/<lang>/<name>`)
or one multi-language table (CSV/TSV: `out_dir/<name>`). Parsers: polib (PO), lxml (XLIFF 1.2 and 2.0),
stdlib json and csv; plural rules from translate-toolkit.
"""

from __future__ import annotations

from pathlib import Path

from mediatrans_client.l10n import xliff_xml
from mediatrans_client.l10n.csv_format import CsvCatalog
from mediatrans_client.l10n.entries import Catalog, Entry, Translated, UnsupportedFileError
from mediatrans_client.l10n.json_format import JsonCatalog
from mediatrans_client.l10n.po_format import PoCatalog
from mediatrans_client.l10n.xliff12 import Xliff12Catalog
from mediatrans_client.l10n.xliff20 import Xliff20Catalog

SUFFIXES = (".po", ".pot", ".xlf", ".xliff", ".json", ".arb", ".csv", ".tsv")

__all__ = ["SUFFIXES", "Catalog", "Entry", "Translated", "UnsupportedFileError", "load"]


def load(path: Path, source_lang: str) -> Catalog:
    """Read a localization file. Raises FileNotFoundError, or UnsupportedFileError for what it cannot handle."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        supported = ", ".join(SUFFIXES)
        raise UnsupportedFileError(f"{path.name}: unsupported file type {suffix or '(no suffix)'!r}; supported: {supported}")
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    if suffix in (".po", ".pot"):
        return PoCatalog(path)
    if suffix in (".xlf", ".xliff"):
        tree = xliff_xml.parse(path)
        if xliff_xml.xliff_version(tree, path.name) == "2.0":
            return Xliff20Catalog(path, tree)
        return Xliff12Catalog(path, tree)
    if suffix in (".json", ".arb"):
        return JsonCatalog(path)
    return CsvCatalog(path, source_lang)
