"""JSON string tables (`.json`: flat, nested, i18next; `.arb`: Flutter Application Resource Bundle) with stdlib json.

Every string value at any depth is an entry; numbers, booleans and null are kept as they are. Entry keys are
readable paths: object members joined with `.`, list items as `[i]` (`menu.start`, `tips[0]`, `a[1].b`). Where
that path is ambiguous (a flat key that itself holds a dot, `{"menu.start": …}` next to `{"menu": {"start": …}}`),
the later entry gets the bracketed form `["menu"]["start"]` (and `#n` after it if even that collides); the
catalog keeps a key -> path map, so keys stay unique, writable and stable across a round trip (the output keeps
structure and order). Members whose name starts with `@` are ARB metadata, at any depth and in both suffixes: not
translated, kept; `"@key": {"description": …, "context": …}` becomes the notes of its sibling `key`, and a
top-level `@@locale` is set to the target language in the output. i18next plural keys (`item_one`,
`item_other`) are ordinary keys. An empty string is an untranslatable entry (nothing to translate).
Output: UTF-8 (BOM kept if the input had one), `ensure_ascii=False`, indent 2, trailing newline.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mediatrans_client.l10n.entries import Entry, Translated, UnsupportedFileError, language_file

PathPart = str | int
BOM = "\ufeff"


def _readable(parts: tuple[PathPart, ...]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _bracketed(parts: tuple[PathPart, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f"[{json.dumps(part, ensure_ascii=False)}]" for part in parts)


def _notes(meta: Any) -> str:
    if not isinstance(meta, dict):
        return ""
    return "\n".join(str(meta[k]) for k in ("description", "context") if isinstance(meta.get(k), str) and meta[k])


def _walk(node: Any, parts: tuple[PathPart, ...], out: list[tuple[tuple[PathPart, ...], str, str]]) -> None:
    """Collect (path, text, notes) of every string under `node`."""
    if isinstance(node, dict):
        for name, value in node.items():
            if name.startswith("@"):
                continue
            here = (*parts, name)
            if isinstance(value, str):
                out.append((here, value, _notes(node.get(f"@{name}"))))
            else:
                _walk(value, here, out)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            here = (*parts, index)
            if isinstance(value, str):
                out.append((here, value, ""))
            else:
                _walk(value, here, out)


class JsonCatalog:
    def __init__(self, path: Path) -> None:
        self.path = path
        raw = path.read_bytes()
        try:
            text = raw.decode("utf-8")
            self._bom = text.startswith(BOM)
            self._data: Any = json.loads(text.removeprefix(BOM))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise UnsupportedFileError(f"{path.name}: not valid UTF-8 JSON ({exc})") from exc
        if not isinstance(self._data, (dict, list)):
            raise UnsupportedFileError(f"{path.name}: the top level is neither an object nor a list")
        found: list[tuple[tuple[PathPart, ...], str, str]] = []
        _walk(self._data, (), found)
        self.paths: dict[str, tuple[PathPart, ...]] = {}
        self.entries: list[Entry] = []
        for parts, source, notes in found:
            key = _readable(parts)
            if key in self.paths:
                key = _bracketed(parts)
            base, number = key, 2
            while key in self.paths:
                key, number = f"{base}#{number}", number + 1
            self.paths[key] = parts
            self.entries.append(Entry(key=key, source=source, notes=notes, translatable=source != ""))

    def write(self, out_dir: Path, translations: Mapping[str, Mapping[str, Translated]]) -> list[Path]:
        written = []
        translatable = {e.key for e in self.entries if e.translatable}
        for lang, by_key in translations.items():
            data = copy.deepcopy(self._data)
            if isinstance(data, dict) and isinstance(data.get("@@locale"), str):
                data["@@locale"] = lang
            for key, parts in self.paths.items():
                done = by_key.get(key) if key in translatable else None
                if done is None:
                    continue
                node = data
                for part in parts[:-1]:
                    node = node[part]
                node[parts[-1]] = done.text
            text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
            out = language_file(out_dir, lang, self.path.name)
            out.write_text((BOM if self._bom else "") + text, encoding="utf-8", newline="\n")
            written.append(out)
        return written
