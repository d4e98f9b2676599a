"""lxml helpers shared by the XLIFF 1.2 and 2.0 catalogs.

Both XLIFF catalogs use lxml directly rather than translate-toolkit's `translate.storage.xliff` / `xliff2`
(checked with translate-toolkit 3.20.4). Its 1.2 store flattens inline markup (`<x id="1"/>` vanishes from the
source and from the target it writes), collapses line breaks in units without `xml:space="preserve"`, prefixes
ids with the file's `original` and stamps `approved="yes"` / `xml:space="preserve"` on every unit it touches.
Its 2.0 store returns no unit `<notes>`, does not see `translate="no"` on the unit and reindents the document.
With lxml the file is re-parsed and only `<target>` elements and the target-language attribute are changed, so
ids, notes, groups, unknown attributes, extension namespaces and whitespace stay byte-for-byte.

Text with inline elements (`<x/>`, `<ph/>`, `<g>`, `<pc>`, `<mrk>`...) is exposed as XML markup (character data
escaped, XLIFF namespace prefixes dropped), e.g. `HP: <x id="1"/> left`, and its translation is parsed back as
markup; plain text is exposed and written as plain text.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from lxml import etree

from mediatrans_client.l10n.entries import UnsupportedFileError

XLIFF12_NS = "urn:oasis:names:tc:xliff:document:1.2"


def parse(path: Path) -> etree._ElementTree:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_blank_text=False, huge_tree=False)
    try:
        tree = etree.parse(str(path), parser)
    except (etree.XMLSyntaxError, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise UnsupportedFileError(f"{path.name}: not well-formed XML ({exc})") from exc
    if etree.QName(tree.getroot()).localname != "xliff":
        raise UnsupportedFileError(f"{path.name}: the root element is not <xliff>")
    return tree


def xliff_version(tree: etree._ElementTree, name: str) -> str:
    """'1.2' or '2.0' from the root's version attribute, else from its namespace."""
    root = tree.getroot()
    version = (root.get("version") or "").strip()
    namespace = etree.QName(root).namespace or ""
    if version.startswith("2") or namespace.startswith("urn:oasis:names:tc:xliff:document:2."):
        return "2.0"
    if version.startswith("1") or namespace == XLIFF12_NS:
        return "1.2"
    raise UnsupportedFileError(f"{name}: unsupported XLIFF version {version or namespace or '(none)'!r}")


def tag(element: etree._Element, name: str) -> str:
    """`name` in the namespace of `element` (XLIFF documents without a namespace exist in the wild)."""
    namespace = etree.QName(element).namespace
    return f"{{{namespace}}}{name}" if namespace else name


def inherited(element: etree._Element, attribute: str) -> str | None:
    """The attribute on the element or its nearest ancestor that has it."""
    for node in (element, *element.iterancestors()):
        value = node.get(attribute)
        if value is not None:
            return value
    return None


def read_text(element: etree._Element | None) -> tuple[str, bool]:
    """(text, has inline markup) of a <source>/<target>/<note>."""
    if element is None:
        return "", False
    if len(element) == 0:
        return element.text or "", False
    children = [child for child in element if isinstance(child.tag, str)]
    namespace = etree.QName(element).namespace
    parts = [escape(element.text or "")]
    for child in element:
        if isinstance(child.tag, str):
            copy = etree.fromstring(etree.tostring(child, with_tail=False))
            for node in copy.iter():
                if isinstance(node.tag, str) and etree.QName(node).namespace == namespace:
                    node.tag = etree.QName(node).localname
            etree.cleanup_namespaces(copy)
            parts.append(etree.tostring(copy, encoding="unicode", with_tail=False))
        parts.append(escape(child.tail or ""))
    return "".join(parts), bool(children)


def write_text(element: etree._Element, text: str, markup: bool) -> None:
    """Replace the content of `element` by `text`, parsed as inline markup when the source had some."""
    for child in list(element):
        element.remove(child)
    element.text = text
    if not markup:
        return
    namespace = etree.QName(element).namespace
    wrapper = f'<t xmlns="{namespace}">{text}</t>' if namespace else f"<t>{text}</t>"
    try:
        fragment = etree.fromstring(wrapper, etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError:
        return  # not markup after all: keep it as (escaped) text
    element.text = fragment.text
    for child in list(fragment):
        element.append(child)


def set_target(container: etree._Element, after: etree._Element, text: str, markup: bool) -> etree._Element:
    """The <target> of `container` (created right after `after` when missing) filled with `text`."""
    target = container.find(tag(container, "target"))
    if target is None:
        target = etree.Element(tag(container, "target"))
        target.tail = after.tail
        if after.getnext() is None:  # `after` was last: its tail is the closing indent, give it the children's one
            previous = after.getprevious()
            indent = previous.tail if previous is not None else container.text
            if indent is not None and not indent.strip():
                after.tail = indent
        after.addnext(target)
    write_text(target, text, markup)
    return target


def units(root: etree._Element, file_id_attribute: str, unit_tag: str, name: str) -> list[tuple[str, str, etree._Element]]:
    """(file id, unit id, unit) of every ``unit_tag`` element in document order; a unit without an id is an error."""
    found = []
    for index, file_el in enumerate(root.iter(tag(root, "file"))):
        file_id = file_el.get(file_id_attribute) or str(index)
        for unit in file_el.iter(tag(root, unit_tag)):
            unit_id = unit.get("id")
            if not unit_id:
                raise UnsupportedFileError(f"{name}: a <{unit_tag}> has no id (line {unit.sourceline})")
            found.append((file_id, unit_id, unit))
    return found


def unique_keys(items: list[tuple[str, str]], name: str) -> list[str]:
    """Keys from (file id, unit id) pairs: the unit id, or `file/unit` where a unit id repeats across files."""
    counts: dict[str, int] = {}
    for _, unit_id in items:
        counts[unit_id] = counts.get(unit_id, 0) + 1
    keys = [unit_id if counts[unit_id] == 1 else f"{file_id}/{unit_id}" for file_id, unit_id in items]
    if len(set(keys)) != len(keys):
        duplicate = next(k for k in keys if keys.count(k) > 1)
        raise UnsupportedFileError(f"{name}: duplicate unit id {duplicate!r}")
    return keys


def save(tree: etree._ElementTree, target: Path) -> None:
    tree.write(str(target), encoding="UTF-8", xml_declaration=True)
