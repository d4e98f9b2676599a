"""gettext PO/POT catalogs through polib.

Keys follow the gettext convention: `msgctxt + "\\x04" + msgid` when a context exists, else `msgid`. The header
and obsolete (`#~`) entries are not entries but are written back. Every comment (`#`, `#.`, `#:`), flag, context
and the order survive because each output is the input re-parsed by polib with only msgstr, the fuzzy flag and the
Language / Plural-Forms / Content-Type headers changed (and the header's own `fuzzy` flag, which a template carries until
these are filled in, cleared as msginit does). The `#| msgid` previous-text lines of a fuzzy entry are
dropped when the entry gets a translation (they only describe why it was fuzzy, like `msgattrib --clear-previous`).
Untranslatable or untranslated entries keep their msgstr as read (empty in a template, so gettext falls back to
msgid); an empty plural msgstr is resized to the target language's number of forms.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import polib

from mediatrans_client.l10n.entries import Entry, Translated, UnsupportedFileError, language_file, parse_limit
from mediatrans_client.l10n.plurals import plural_forms_header, plural_rule

NO_TRANSLATE_FLAGS = frozenset({"no-translate", "notranslate", "read-only"})


def entry_key(entry: polib.POEntry) -> str:
    return f"{entry.msgctxt}\x04{entry.msgid}" if entry.msgctxt is not None else entry.msgid


def _parse(path: Path) -> polib.POFile:
    try:
        return polib.pofile(str(path), wrapwidth=78)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise UnsupportedFileError(f"{path.name}: not a readable PO file ({exc})") from exc


def _live(po: polib.POFile) -> list[polib.POEntry]:
    return [e for e in po if not e.obsolete and e.msgid != ""]


def _to_entry(po_entry: polib.POEntry) -> Entry:
    flags = {flag.strip() for flag in po_entry.flags}
    max_length = None
    for flag in flags:
        if flag.startswith("max-length:"):
            max_length = parse_limit(flag.split(":", 1)[1])
    notes = [text for text in (po_entry.comment, po_entry.tcomment) if text]
    return Entry(
        key=entry_key(po_entry),
        source=po_entry.msgid,
        source_plural=po_entry.msgid_plural or None,
        notes="\n".join(notes),
        translatable=not (flags & NO_TRANSLATE_FLAGS),
        max_length=max_length,
    )


class PoCatalog:
    def __init__(self, path: Path) -> None:
        self.path = path
        po = _parse(path)
        self.entries: list[Entry] = [_to_entry(e) for e in _live(po)]
        keys = [e.key for e in self.entries]
        if len(set(keys)) != len(keys):
            duplicate = next(k for k in keys if keys.count(k) > 1)
            raise UnsupportedFileError(f"{path.name}: duplicate msgid/msgctxt {duplicate!r}")

    @property
    def output_name(self) -> str:
        return self.path.stem + ".po" if self.path.suffix.lower() == ".pot" else self.path.name

    def write(self, out_dir: Path, translations: Mapping[str, Mapping[str, Translated]]) -> list[Path]:
        written = []
        translatable = {e.key for e in self.entries if e.translatable}
        for lang, by_key in translations.items():
            po = _parse(self.path)
            live = _live(po)
            has_plurals = any(e.msgid_plural for e in live)
            nplurals = plural_rule(lang)[0] if has_plurals else 0
            po.metadata["Language"] = lang
            po.metadata_is_fuzzy = False  # a template's header is fuzzy until filled in, as msginit does
            try:
                po.metadata["Plural-Forms"] = plural_forms_header(lang)
            except ValueError:
                if has_plurals:
                    raise
            if "charset=CHARSET" in po.metadata.get("Content-Type", "charset=CHARSET"):
                po.metadata["Content-Type"] = "text/plain; charset=UTF-8"
                po.encoding = "utf-8"
            for po_entry in live:
                key = entry_key(po_entry)
                done = by_key.get(key) if key in translatable else None
                if po_entry.msgid_plural:
                    _fill_plural(po_entry, done, nplurals)
                elif done is not None:
                    po_entry.msgstr = done.text
                if done is not None and "fuzzy" in po_entry.flags:
                    po_entry.flags = [f for f in po_entry.flags if f != "fuzzy"]
                    po_entry.previous_msgid = po_entry.previous_msgid_plural = po_entry.previous_msgctxt = None
            target = language_file(out_dir, lang, self.output_name)
            po.save(str(target))
            written.append(target)
        return written


def _fill_plural(po_entry: polib.POEntry, done: Translated | None, nplurals: int) -> None:
    if done is None:
        if not any(po_entry.msgstr_plural.values()):
            po_entry.msgstr_plural = dict.fromkeys(range(nplurals), "")
        return
    plural = done.plural if done.plural is not None else done.text
    if nplurals == 1:
        po_entry.msgstr_plural = {0: plural}
    else:
        po_entry.msgstr_plural = {0: done.text, **dict.fromkeys(range(1, nplurals), plural)}
