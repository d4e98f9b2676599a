"""The localization-file layer: every format read, written for ru (3 plural forms) and ja (1), and re-read both with
the same loader and with an independent reader (polib, lxml, json, csv)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path

import polib
import pytest
from lxml import etree

from mediatrans_client.l10n import SUFFIXES, Catalog, Entry, Translated, UnsupportedFileError, load
from mediatrans_client.l10n.plurals import plural_rule

DATA = Path(__file__).parent / "data" / "l10n"
LANGS = ("ru", "ja")
MARK = {"ru": "перевод", "ja": "翻訳", "pl": "tłum", "fr": "trad"}
X12 = "{urn:oasis:names:tc:xliff:document:1.2}"
X20 = "{urn:oasis:names:tc:xliff:document:2.0}"


def fake(lang: str, text: str) -> str:
    return f"[{lang}:{MARK[lang.lower()]}] {text}"


def translate_all(
    catalog: Catalog, langs: tuple[str, ...] = LANGS, skip: tuple[str, ...] = ()
) -> dict[str, dict[str, Translated]]:
    """Translations of every entry, untranslatable ones included: the writer must be the one to leave them alone."""
    return {
        lang: {
            e.key: Translated(fake(lang, e.source), fake(lang, e.source_plural) if e.source_plural else None)
            for e in catalog.entries
            if e.key not in skip
        }
        for lang in langs
    }


def by_key(catalog: Catalog) -> dict[str, Entry]:
    return {e.key: e for e in catalog.entries}


# ---------------------------------------------------------------- dispatch and errors


def test_suffixes_and_unknown_suffix(tmp_path: Path) -> None:
    assert set(SUFFIXES) >= {".po", ".pot", ".xlf", ".xliff", ".json", ".arb", ".csv", ".tsv"}
    (tmp_path / "strings.yaml").write_text("a: b\n")
    with pytest.raises(UnsupportedFileError, match=r"unsupported file type '\.yaml'"):
        load(tmp_path / "strings.yaml", "en")
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "missing.po", "en")
    assert issubclass(UnsupportedFileError, ValueError)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("broken.po", 'msgid "a"\nmsgstr "b\nmsgid\n', "not a readable PO file"),
        ("broken.xlf", "<xliff version='1.2'><file>", "not well-formed XML"),
        ("other.xliff", "<?xml version='1.0'?><resources/>", "root element is not <xliff>"),
        ("future.xlf", "<xliff version='3.0'/>", "unsupported XLIFF version"),
        ("noid.xlf", "<xliff version='1.2'><file><body><trans-unit><source>a</source></trans-unit></body></file></xliff>", "id"),
        ("broken.json", '{"a": "b",}', "not valid UTF-8 JSON"),
        ("scalar.json", '"just a string"', "neither an object nor a list"),
        ("latin1.csv", "key,en\nk,caf\xe9\n", "not UTF-8"),
        ("nokey.csv", "label,en\nk,v\n", "no key column"),
        ("nosource.csv", "key,de\nk,v\n", "no source column"),
        ("dupes.csv", "key,en\nk,a\nk,b\n", "duplicate key 'k'"),
        ("empty.tsv", "", "no header row"),
    ],
)
def test_unusable_files_raise(tmp_path: Path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content.encode("latin-1") if name.startswith("latin1") else content.encode())
    with pytest.raises(UnsupportedFileError, match=message):
        load(path, "en")


def test_plural_rules_from_translate_toolkit() -> None:
    assert plural_rule("ru")[0] == 3
    assert plural_rule("pl")[0] == 3
    assert plural_rule("ja") == (1, "0")
    assert plural_rule("zh-Hans")[0] == 1  # falls back to the zh_* variants, which agree
    assert plural_rule("es-419") == plural_rule("es")
    with pytest.raises(ValueError, match="unknown language"):
        plural_rule("qqq")


@pytest.mark.parametrize(
    "name", ["game.pot", "ui.xlf", "dialog.xliff", "flat.json", "nested.json", "app_en.arb", "strings.csv", "strings.tsv"]
)
def test_output_reloads_with_same_keys_and_metadata(tmp_path: Path, name: str) -> None:
    catalog = load(DATA / name, "en")
    written = catalog.write(tmp_path, translate_all(catalog))
    assert written and all(p.is_file() for p in written)
    for path in written:
        again = load(path, "en")
        assert [e.key for e in again.entries] == [e.key for e in catalog.entries]
        for before, after in zip(catalog.entries, again.entries):
            assert (after.notes, after.translatable, after.max_length, after.source_plural) == (
                before.notes,
                before.translatable,
                before.max_length,
                before.source_plural,
            )
            if not name.endswith((".json", ".arb")):  # JSON is monolingual: its source now is the translation
                assert after.source == before.source


# ---------------------------------------------------------------- PO


def test_po_entries() -> None:
    entries = by_key(load(DATA / "game.pot", "en"))
    assert list(entries) == [
        "menu\x04Start",
        "shop\x04Start",
        "You have %d coin",
        "Health points",
        "NEBULA WORKS",
        "Inventory",
        "The stars went dark.\nOnly you remember the way home.",
    ]  # no header, no obsolete entry
    assert entries["menu\x04Start"].notes == "Main menu, first button\nTranslator: keep it short, it is a button."
    assert entries["menu\x04Start"].source == entries["shop\x04Start"].source == "Start"
    coins = entries["You have %d coin"]
    assert (coins.source_plural, coins.notes) == ("You have %d coins", "%d is the number of coins")
    assert not entries["NEBULA WORKS"].translatable
    assert entries["Inventory"].max_length == 12
    assert all(e.translatable for k, e in entries.items() if k != "NEBULA WORKS")
    assert all(e.source_plural is None for k, e in entries.items() if k != "You have %d coin")


def test_po_written_for_three_and_one_plural_forms(tmp_path: Path) -> None:
    catalog = load(DATA / "game.pot", "en")
    written = catalog.write(tmp_path, translate_all(catalog))
    assert written == [tmp_path / "ru" / "game.po", tmp_path / "ja" / "game.po"]  # .pot -> .po
    template = polib.pofile(str(DATA / "game.pot"))
    for lang, nplurals in (("ru", 3), ("ja", 1)):
        po = polib.pofile(str(tmp_path / lang / "game.po"))
        assert po.metadata["Language"] == lang
        assert po.metadata["Plural-Forms"].startswith(f"nplurals={nplurals}; plural=")
        assert po.metadata["Project-Id-Version"] == "starfall 1.4"
        assert "Content-Type" in po.metadata and "CHARSET" not in po.metadata["Content-Type"]
        assert [(e.msgctxt, e.msgid, e.obsolete) for e in po] == [(e.msgctxt, e.msgid, e.obsolete) for e in template]
        for out, src in zip(po, template):
            assert (out.comment, out.tcomment, out.occurrences) == (src.comment, src.tcomment, src.occurrences)
            assert [f for f in out.flags if f != "fuzzy"] == [f for f in src.flags if f != "fuzzy"]
        entries = {(e.msgctxt, e.msgid): e for e in po if not e.obsolete}
        assert entries[("menu", "Start")].msgstr == fake(lang, "Start")
        coins = entries[(None, "You have %d coin")]
        assert len(coins.msgstr_plural) == nplurals
        if nplurals == 1:
            assert coins.msgstr_plural == {0: fake(lang, "You have %d coins")}
        else:
            assert coins.msgstr_plural[0] == fake(lang, "You have %d coin")
            assert all(coins.msgstr_plural[i] == fake(lang, "You have %d coins") for i in range(1, nplurals))
        health = entries[(None, "Health points")]
        assert "fuzzy" not in health.flags and health.msgstr == fake(lang, "Health points")
        assert health.previous_msgid is None
        brand = entries[(None, "NEBULA WORKS")]
        assert brand.msgstr == "" and brand.flags == ["no-translate"]
        assert entries[(None, "Inventory")].flags == ["max-length:12"]
        story = entries[(None, "The stars went dark.\nOnly you remember the way home.")]
        assert story.msgstr == fake(lang, "The stars went dark.\nOnly you remember the way home.")
        assert [e.msgid for e in po.obsolete_entries()] == ["Old unused line"]
        assert po.translated_entries() and not po.fuzzy_entries()


def test_po_missing_key_is_left_untranslated_and_plural_slots_fit_polish(tmp_path: Path) -> None:
    po_file = tmp_path / "src" / "menu.po"
    po_file.parent.mkdir()
    po_file.write_text(
        'msgid ""\nmsgstr ""\n"Language: en\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        '#, fuzzy\nmsgid "Quit"\nmsgstr "Quit?"\n\n'
        'msgid "%d life"\nmsgid_plural "%d lives"\nmsgstr[0] ""\nmsgstr[1] ""\n\n'
        '#, read-only\nmsgid "v1.0"\nmsgstr "v1.0"\n',
        encoding="utf-8",
    )
    catalog = load(po_file, "en")
    assert [e.translatable for e in catalog.entries] == [True, True, False]
    catalog.write(tmp_path / "out", translate_all(catalog, ("pl",), skip=("%d life",)))
    po = polib.pofile(str(tmp_path / "out" / "pl" / "menu.po"))
    quit_, lives, version = list(po)
    assert (quit_.msgstr, quit_.flags) == (fake("pl", "Quit"), [])
    assert lives.msgstr_plural == {0: "", 1: "", 2: ""}  # untranslated, but with Polish's three slots
    assert (version.msgstr, version.flags) == ("v1.0", ["read-only"])  # untouched
    assert po.metadata["Language"] == "pl"


# ---------------------------------------------------------------- XLIFF 1.2


def test_xliff12_entries() -> None:
    entries = by_key(load(DATA / "ui.xlf", "en"))
    assert list(entries) == ["menu.start", "menu.quit", "brand", "dialog.intro", "hud.hp"]
    assert entries["menu.start"].notes == "Main menu button"
    assert entries["menu.start"].max_length == 12
    assert entries["menu.quit"].max_length is None  # maxwidth in pixels is no character limit
    assert not entries["brand"].translatable and entries["brand"].notes == "Studio logo text"
    assert entries["dialog.intro"].source == "Welcome, traveller.\nThe road is long."
    assert entries["dialog.intro"].notes == "Said by the innkeeper\nTwo lines on screen"
    assert entries["hud.hp"].source == 'HP: <x id="1" ctype="x-hp"/> left'


def test_xliff12_written_with_targets_only_where_translatable(tmp_path: Path) -> None:
    catalog = load(DATA / "ui.xlf", "en")
    written = catalog.write(tmp_path, translate_all(catalog, skip=("menu.quit",)))
    assert written == [tmp_path / lang / "ui.xlf" for lang in LANGS]
    original = etree.parse(str(DATA / "ui.xlf")).getroot()
    for lang in LANGS:
        root = etree.parse(str(tmp_path / lang / "ui.xlf")).getroot()
        assert root.find(f"{X12}file").get("target-language") == lang
        assert root.find(f".//{X12}tool").get("tool-id") == "studio-export"
        assert [g.get("id") for g in root.iter(f"{X12}group")] == ["menu"]
        units = {u.get("id"): u for u in root.iter(f"{X12}trans-unit")}
        for before in original.iter(f"{X12}trans-unit"):
            after = units[before.get("id")]
            assert dict(after.attrib) == dict(before.attrib)
            assert [n.text for n in after.iter(f"{X12}note")] == [n.text for n in before.iter(f"{X12}note")]
            assert [(n.get("from"), n.text) for n in after.iter(f"{X12}note")] == [
                (n.get("from"), n.text) for n in before.iter(f"{X12}note")
            ]
        assert units["menu.start"].findtext(f"{X12}target") == fake(lang, "Start game")
        assert units["menu.start"].find(f"{X12}target").get("state") == "translated"
        assert units["menu.start"].find(f"{X12}target").getprevious().tag == f"{X12}source"
        assert units["menu.quit"].find(f"{X12}target") is None  # missing from the translations
        assert units["brand"].find(f"{X12}target") is None  # translate="no"
        assert units["dialog.intro"].findtext(f"{X12}target") == fake(lang, "Welcome, traveller.\nThe road is long.")
        hp = units["hud.hp"].find(f"{X12}target")
        assert [(x.tag, x.get("id"), x.get("ctype")) for x in hp] == [(f"{X12}x", "1", "x-hp")]
        assert "".join(hp.itertext()) == fake(lang, "HP:  left")


def test_xliff12_output_is_readable_by_translate_toolkit(tmp_path: Path) -> None:
    from translate.storage import xliff

    catalog = load(DATA / "ui.xlf", "en")
    catalog.write(tmp_path, translate_all(catalog))
    store = xliff.xlifffile.parsefile(str(tmp_path / "ru" / "ui.xlf"))
    targets = {u.xmlelement.get("id"): u.target for u in store.units}
    assert targets["menu.start"] == fake("ru", "Start game")
    assert not targets["brand"]
    assert store.gettargetlanguage() == "ru"


def test_xliff12_without_namespace_and_existing_target(tmp_path: Path) -> None:
    path = tmp_path / "legacy.xliff"
    path.write_text(
        '<xliff version="1.2"><file original="a" source-language="en"><body>\n'
        '<trans-unit id="a"><source>Yes</source><target state="needs-translation">Yes</target></trans-unit>\n'
        '<trans-unit id="b"><source/></trans-unit>\n'
        "</body></file></xliff>\n",
        encoding="utf-8",
    )
    catalog = load(path, "en")
    assert [(e.key, e.translatable) for e in catalog.entries] == [("a", True), ("b", False)]
    catalog.write(tmp_path / "out", translate_all(catalog, ("ja",)))
    unit = etree.parse(str(tmp_path / "out" / "ja" / "legacy.xliff")).getroot().find(".//trans-unit")
    assert [(t.text, t.get("state")) for t in unit.findall("target")] == [(fake("ja", "Yes"), "translated")]


def test_xliff_duplicate_ids_across_files_get_file_prefix(tmp_path: Path) -> None:
    path = tmp_path / "two.xlf"
    unit = '<trans-unit id="ok"><source>OK</source></trans-unit>'
    path.write_text(
        f'<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2"><file original="menu"><body>{unit}</body></file>'
        f'<file original="hud"><body>{unit}</body></file></xliff>',
        encoding="utf-8",
    )
    catalog = load(path, "en")
    assert [e.key for e in catalog.entries] == ["menu/ok", "hud/ok"]
    catalog.write(tmp_path / "out", {"ja": {"hud/ok": Translated("了解")}})
    root = etree.parse(str(tmp_path / "out" / "ja" / "two.xlf")).getroot()
    assert [f.get("target-language") for f in root.iter(f"{X12}file")] == ["ja", "ja"]
    assert [u.findtext(f"{X12}target") for u in root.iter(f"{X12}trans-unit")] == [None, "了解"]


# ---------------------------------------------------------------- XLIFF 2.0


def test_xliff20_entries() -> None:
    entries = by_key(load(DATA / "dialog.xliff", "en"))
    assert list(entries) == ["npc.greet", "brand", "quest.1#1", "quest.1#2", "quest.1#3", "quest.2"]
    assert entries["npc.greet"].notes == "Innkeeper greets the player\nInnkeeper"
    assert entries["npc.greet"].max_length == 40
    assert not entries["brand"].translatable  # translate="no" on the unit
    assert not entries["quest.1#2"].translatable  # ... and on a segment
    assert entries["quest.1#1"].translatable and entries["quest.1#3"].translatable
    assert entries["quest.1#3"].source == 'Bring it to <ph id="1" disp="captain"/> before dawn.'
    assert entries["quest.2"].source == "The tide is turning.\nHurry."


def test_xliff20_written_per_segment(tmp_path: Path) -> None:
    catalog = load(DATA / "dialog.xliff", "en")
    catalog.write(tmp_path, translate_all(catalog))
    original = etree.parse(str(DATA / "dialog.xliff")).getroot()
    for lang in LANGS:
        root = etree.parse(str(tmp_path / lang / "dialog.xliff")).getroot()
        assert (root.get("trgLang"), root.get("srcLang")) == (lang, "en")
        units = {u.get("id"): u for u in root.iter(f"{X20}unit")}
        assert list(units) == [u.get("id") for u in original.iter(f"{X20}unit")]
        assert [n.text for n in units["npc.greet"].iter(f"{X20}note")] == ["Innkeeper greets the player", "Innkeeper"]
        assert units["npc.greet"].get("{urn:oasis:names:tc:xliff:sizerestriction:2.0}sizeRestriction") == "40"
        assert units["npc.greet"].findtext(f"{X20}segment/{X20}target") == fake(lang, "Welcome to the Rusty Anchor!")
        assert units["brand"].find(f".//{X20}target") is None
        s1, s2, s3 = units["quest.1"].findall(f"{X20}segment")
        assert (s1.get("id"), s1.get("state")) == ("s1", "translated")
        assert s1.findtext(f"{X20}target") == fake(lang, "Find the lost map.")
        assert s2.find(f"{X20}target") is None and s2.get("translate") == "no"
        assert [(p.tag, p.get("disp")) for p in s3.find(f"{X20}target")] == [(f"{X20}ph", "captain")]
        assert units["quest.1"].findtext(f"{X20}ignorable/{X20}source") == " "
        quest2 = units["quest.2"].findall(f"{X20}segment/{X20}target")
        assert [t.text for t in quest2] == [fake(lang, "The tide is turning.\nHurry.")]  # the old draft replaced
        assert [g.get("id") for g in root.iter(f"{X20}group")] == ["quests"]


def test_xliff_version_from_namespace_when_version_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "v21.xlf"
    path.write_text(
        '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en"><file id="f">'
        '<unit id="u"><segment><source>Go</source></segment></unit></file></xliff>',
        encoding="utf-8",
    )
    catalog = load(path, "en")
    assert [e.key for e in catalog.entries] == ["u"]
    catalog.write(tmp_path / "out", translate_all(catalog, ("ru",)))
    root = etree.parse(str(tmp_path / "out" / "ru" / "v21.xlf")).getroot()
    assert root.get("trgLang") == "ru"
    assert root.findtext(f".//{X20}target") == fake("ru", "Go")


# ---------------------------------------------------------------- JSON / ARB


def test_flat_json_with_dotted_keys(tmp_path: Path) -> None:
    catalog = load(DATA / "flat.json", "en")
    entries = by_key(catalog)
    assert list(entries) == ["menu.start", "menu.quit", '["menu"]["start"]', "item_one", "item_other", "story.intro", "empty"]
    assert entries['["menu"]["start"]'].source == "Begin"
    assert not entries["empty"].translatable
    catalog.write(tmp_path, translate_all(catalog, skip=("menu.quit",)))
    source = json.loads((DATA / "flat.json").read_text(encoding="utf-8"))
    for lang in LANGS:
        text = (tmp_path / lang / "flat.json").read_text(encoding="utf-8")
        data = json.loads(text)
        expected = {
            "menu.start": fake(lang, "Start game"),
            "menu.quit": "Quit",
            "menu": {"start": fake(lang, "Begin")},
            "item_one": fake(lang, "{{count}} item"),
            "item_other": fake(lang, "{{count}} items"),
            "story.intro": fake(lang, source["story.intro"]),
            "empty": "",
        }
        assert data == expected and list(data) == list(source)
        assert text == json.dumps(expected, ensure_ascii=False, indent=2) + "\n"
        assert MARK[lang] in text  # not \u-escaped


def test_nested_json_with_lists_and_numbers(tmp_path: Path) -> None:
    catalog = load(DATA / "nested.json", "en")
    assert [e.key for e in catalog.entries] == [
        "menu.title",
        "menu.buttons.start",
        "menu.buttons.options",
        "tips[0]",
        "tips[1].text",
        "tips[3][0]",
        "hud.label",
    ]
    catalog.write(tmp_path, translate_all(catalog))
    data = json.loads((tmp_path / "ru" / "nested.json").read_text(encoding="utf-8"))
    assert data["version"] == 3 and data["menu"]["visible"] is True and data["hud"]["scale"] == 1
    assert data["tips"] == [
        fake("ru", "Press J to jump."),
        {"text": fake("ru", "Hold shift to run."), "weight": 2.5},
        None,
        [fake("ru", "Nested list line")],
    ]
    assert data["menu"]["buttons"] == {"start": fake("ru", "Start"), "options": fake("ru", "Options")}


def test_arb_metadata(tmp_path: Path) -> None:
    catalog = load(DATA / "app_en.arb", "en")
    entries = by_key(catalog)
    assert list(entries) == ["title", "coins", "greeting"]
    assert entries["title"].notes == "Game title in the app bar"
    assert entries["coins"].notes == "Coin counter on the HUD"
    assert entries["greeting"].notes == ""
    catalog.write(tmp_path, translate_all(catalog))
    source = json.loads((DATA / "app_en.arb").read_text(encoding="utf-8"))
    for lang in LANGS:
        data = json.loads((tmp_path / lang / "app_en.arb").read_text(encoding="utf-8"))
        assert list(data) == list(source)
        assert data["@@locale"] == lang
        assert data["@@last_modified"] == source["@@last_modified"]
        assert data["@coins"] == source["@coins"] and data["@title"] == source["@title"]
        assert data["coins"] == fake(lang, source["coins"])


# ---------------------------------------------------------------- CSV / TSV


def read_table(path: Path, delimiter: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline=""), delimiter=delimiter))


def test_csv_entries() -> None:
    entries = by_key(load(DATA / "strings.csv", "en"))
    assert list(entries) == ["menu.start", "brand", "dialog.intro", "hud.score"]  # the blank row is no entry
    assert (entries["menu.start"].notes, entries["menu.start"].max_length) == ("Main menu button", 12)
    assert not entries["brand"].translatable
    assert entries["dialog.intro"].source == "Welcome, traveller.\r\nThe road is long."
    assert (entries["hud.score"].translatable, entries["hud.score"].max_length) == (True, 20)
    assert entries["hud.score"].notes == "Shown on HUD, top right"


def test_csv_written_as_one_table_with_bom_and_crlf(tmp_path: Path) -> None:
    catalog = load(DATA / "strings.csv", "en")
    written = catalog.write(tmp_path, translate_all(catalog, skip=("hud.score",)))
    assert written == [tmp_path / "strings.csv"]
    raw = written[0].read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfKey,en,") and b"\r\n" in raw
    rows = read_table(written[0], ",")
    source_rows = read_table(DATA / "strings.csv", ",")
    assert rows[0] == [*source_rows[0], "ru", "ja"]
    assert [row[:7] for row in rows] == source_rows  # every row and column kept
    table = {row[0]: row for row in rows[1:] if row[0]}
    assert table["menu.start"][7:] == [fake("ru", "Start game"), fake("ja", "Start game")]
    assert table["brand"][7:] == ["NEBULA WORKS", "NEBULA WORKS"]  # translate=no keeps the source
    assert table["hud.score"][7:] == ["Score: {0}", "Score: {0}"]  # missing from the translations
    assert table["dialog.intro"][7] == fake("ru", "Welcome, traveller.\r\nThe road is long.")
    assert rows[3] == [""] * 9


def test_csv_replaces_an_existing_language_column(tmp_path: Path) -> None:
    catalog = load(DATA / "strings.csv", "en")
    catalog.write(tmp_path, translate_all(catalog, ("FR",)))
    rows = read_table(tmp_path / "strings.csv", ",")
    assert rows[0] == read_table(DATA / "strings.csv", ",")[0]  # no new column, header spelling kept
    assert rows[1][6] == fake("FR", "Start game")


def test_semicolon_csv_with_region_source_header(tmp_path: Path) -> None:
    catalog = load(DATA / "strings_semicolon.csv", "en")  # `en` matches the `en-US` header
    entries = by_key(catalog)
    assert [(e.key, e.source, e.notes, e.max_length) for e in entries.values()] == [
        ("ui.ok", "OK", "Confirm button", 4),
        ("ui.cancel", "Cancel", "Cancel; go back", None),
        ("ui.brand", "", "Empty on purpose", None),
    ]
    assert not entries["ui.brand"].translatable
    catalog.write(tmp_path, translate_all(catalog))
    raw = (tmp_path / "strings_semicolon.csv").read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf") and b"\r\n" not in raw
    rows = read_table(tmp_path / "strings_semicolon.csv", ";")
    assert rows[0] == ["id", "en-US", "notes", "limit", "ru", "ja"]
    assert rows[2] == ["ui.cancel", "Cancel", "Cancel; go back", "", fake("ru", "Cancel"), fake("ja", "Cancel")]
    assert rows[3][4:] == ["", ""]
    assert load(DATA / "strings_semicolon.csv", "en-US").entries == catalog.entries


def test_tsv(tmp_path: Path) -> None:
    catalog = load(DATA / "strings.tsv", "de")  # no `de` column: falls back to `source`
    assert [(e.key, e.source, e.notes) for e in catalog.entries] == [("ui.ok", "OK", "Confirm button"), ("ui.back", "Back", "")]
    catalog.write(tmp_path, translate_all(catalog))
    rows = read_table(tmp_path / "strings.tsv", "\t")
    assert rows == [
        ["string_id", "source", "context", "ru", "ja"],
        ["ui.ok", "OK", "Confirm button", fake("ru", "OK"), fake("ja", "OK")],
        ["ui.back", "Back", "", fake("ru", "Back"), fake("ja", "Back")],
    ]


def test_translations_mapping_is_only_read(tmp_path: Path) -> None:
    catalog = load(DATA / "game.pot", "en")
    translations: Mapping[str, Mapping[str, Translated]] = translate_all(catalog)
    snapshot = json.dumps({k: {kk: vars(vv) for kk, vv in v.items()} for k, v in translations.items()}, sort_keys=True)
    catalog.write(tmp_path, translations)
    assert json.dumps({k: {kk: vars(vv) for kk, vv in v.items()} for k, v in translations.items()}, sort_keys=True) == snapshot
