"""Translation-memory files: TMX, XLIFF 1.2 and 2.0, CSV and TSV into pairs; bad files refused in one line."""

from __future__ import annotations

import pytest

from engines.text.memory_files import (
    MAX_MEMORY_FILE_BYTES,
    MAX_TEXT_CHARS,
    BadMemoryFile,
    clean_text,
    language_rank,
    normalise_source,
    read_memory_file,
)

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4">
<header srclang="en-US" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x"
        creationtool="t" creationtoolversion="1"/>
<body>
<tu><tuv xml:lang="en-US"><seg>Open the <bpt i="1">&lt;b&gt;</bpt>door<ept i="1">&lt;/b&gt;</ept></seg></tuv>
    <tuv xml:lang="de-DE"><seg>Öffne die Tür</seg></tuv>
    <tuv xml:lang="es-ES"><seg>Abre la <hi>puerta</hi></seg></tuv></tu>
<tu><tuv lang="EN"><seg>Quest log</seg></tuv><tuv xml:lang="es"><seg>Diario de misiones</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Only English</seg></tuv><tuv xml:lang="fr"><seg>Seulement</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Empty target</seg></tuv><tuv xml:lang="es"><seg>  </seg></tuv></tu>
</body>
</tmx>
"""

XLIFF12 = """<?xml version="1.0"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="ui" source-language="en-US" target-language="es" datatype="plaintext"><body>
<trans-unit id="hp"><source>Health <g id="1">Points</g></source><target>Puntos de <g id="1">Vida</g></target></trans-unit>
<trans-unit id="todo"><source>Not yet translated</source></trans-unit>
<group id="menu"><trans-unit id="quit"><source>Quit game</source><target>Salir del juego</target></trans-unit></group>
</body></file>
</xliff>
"""

XLIFF20 = """<?xml version="1.0"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="pt-BR">
<file id="f1">
<unit id="u1"><segment><source>Hello <pc id="1">hero</pc>.</source><target>Olá <pc id="1">herói</pc>.</target></segment>
<segment><source>Welcome back.</source><target>Bem-vindo de volta.</target></segment></unit>
<unit id="u2"><segment><source>Untranslated</source></segment></unit>
</file>
</xliff>
"""


def test_tmx_takes_the_tuvs_of_the_memory_languages_without_inline_codes() -> None:
    read = read_memory_file(TMX.encode(), "game.tmx", "en", "es")
    assert read.format == "tmx"
    assert read.pairs == [("Open the door", "Abre la puerta"), ("Quest log", "Diario de misiones")]
    assert read.skipped == 2  # no Spanish; an empty Spanish segment
    german = read_memory_file(TMX.encode(), None, "en", "de")
    assert german.pairs == [("Open the door", "Öffne die Tür")] and german.skipped == 3


def test_tmx_variants_match_sensibly() -> None:
    tmx = TMX.replace('xml:lang="es-ES"', 'xml:lang="pt-PT"').replace('xml:lang="es"', 'xml:lang="pt-BR"')
    brazil = read_memory_file(tmx.encode(), None, "en", "pt-BR")
    assert brazil.pairs == [("Quest log", "Diario de misiones")]  # pt-PT is not pt-BR
    any_portuguese = read_memory_file(tmx.encode(), None, "en", "pt")
    assert [s for s, _ in any_portuguese.pairs] == ["Open the door", "Quest log"]


def test_xliff_1_2_reads_translated_units_and_checks_the_declared_languages() -> None:
    read = read_memory_file(XLIFF12.encode(), "ui.xlf", "en", "es")
    assert read.format == "xliff"
    assert read.pairs == [("Health Points", "Puntos de Vida"), ("Quit game", "Salir del juego")]
    assert read.skipped == 1
    with pytest.raises(BadMemoryFile, match="target language is 'es', not the memory's target_lang 'fr'"):
        read_memory_file(XLIFF12.encode(), "ui.xlf", "en", "fr")


def test_xliff_2_0_reads_every_segment() -> None:
    read = read_memory_file(XLIFF20.encode(), "ui.xliff", "en", "pt-BR")
    assert read.pairs == [("Hello hero.", "Olá herói."), ("Welcome back.", "Bem-vindo de volta.")]
    assert read.skipped == 1
    with pytest.raises(BadMemoryFile, match="target language is 'pt-BR'"):
        read_memory_file(XLIFF20.encode(), "ui.xliff", "en", "pt-PT")


def test_csv_with_a_header_quotes_and_line_breaks() -> None:
    data = 'Source,Target\r\nHello,Hola\r\n\r\n"Two\nlines","Dos, líneas"\r\n"He said ""hi""",Dijo «hola»,\r\n'
    read = read_memory_file(data.encode("utf-8-sig"), "terms.csv", "en", "es")
    assert read.format == "csv"
    assert read.pairs == [("Hello", "Hola"), ("Two\nlines", "Dos, líneas"), ('He said "hi"', "Dijo «hola»")]


def test_language_code_headers_semicolons_and_no_header() -> None:
    assert read_memory_file(b"en;es\nHello;Hola\n", "x.csv", "en", "es").pairs == [("Hello", "Hola")]
    assert read_memory_file(b"Sword,Espada\n", None, "en", "es").pairs == [("Sword", "Espada")]


def test_tsv_is_not_quoted_and_may_be_utf16() -> None:
    data = 'en-US\tes\n"Quoted"\t"Citado"\nA\tB\n'.encode("utf-16")
    read = read_memory_file(data, "memory.tsv", "en", "es")
    assert read.format == "tsv" and read.pairs == [('"Quoted"', '"Citado"'), ("A", "B")]
    assert read_memory_file(b"one\ttwo\n", "memory.txt", "en", "es").format == "tsv"  # a tab on the first line


@pytest.mark.parametrize(
    ("data", "filename", "message"),
    [
        (b"<tmx><body><tu>", "x.tmx", "the file is not well-formed XML (line 1)."),
        (
            b"<?xml version='1.0'?>\n<html><body/></html>",
            None,
            "an XML file must be TMX (a <tmx> root) or XLIFF (an <xliff> root).",
        ),
        (b'<tmx version="1.4"><body><tu><tuv><seg>x</seg></tuv></tu></body></tmx>', None, "line 1: a <tuv> has no xml:lang."),
        (b"Hello,Hola\nA,B,C\n", "x.csv", "line 2: expected 2 columns (source, target), found 3."),
        (b"Hello\n", "x.csv", "line 1: expected 2 columns (source, target), found 1."),
        (b'Hello,Hola\n"open,x\n', "x.csv", "not a CSV row"),
        (b"Hello,Hola\n\xff\xfe,x\n", "x.csv", "line 2: the file is not text"),
        (b"Hello,Hola\nBell,\x07\n", "x.csv", "line 2: the target text holds a control character (U+0007)."),
        (b"Hello,Hola\n ,x\n", "x.csv", "line 2: the source text is empty."),
        (("a," + "x" * (MAX_TEXT_CHARS + 1)).encode(), "x.csv", f"line 1: the target text is longer than {MAX_TEXT_CHARS}"),
        (b"source,target\n", "x.csv", "the file has no rows of source and target text."),
    ],
)
def test_bad_files_are_refused_in_one_line(data: bytes, filename: str | None, message: str) -> None:
    with pytest.raises(BadMemoryFile) as err:
        read_memory_file(data, filename, "en", "es")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_file_without_the_pair_is_refused() -> None:
    with pytest.raises(BadMemoryFile, match=r"^no unit of the file has both en and ja text \(4 units without\)\.$"):
        read_memory_file(TMX.encode(), "x.tmx", "en", "ja")


def test_an_xliff_unit_over_the_limit_is_named_with_its_line() -> None:
    long = XLIFF12.replace("Salir del juego", "y" * (MAX_TEXT_CHARS + 1))
    with pytest.raises(BadMemoryFile, match=r"the unit 'quit' at line 6: the target text is longer than 2000"):
        read_memory_file(long.encode(), None, "en", "es")


def test_a_file_over_the_cap_is_refused() -> None:
    with pytest.raises(BadMemoryFile, match="over the 16 MB limit"):
        read_memory_file(b"a,b\n" * (MAX_MEMORY_FILE_BYTES // 4 + 1), None, "en", "es")


def test_normalise_and_clean() -> None:
    assert normalise_source("  Open\tthe \n DOOR ") == "open the door"
    assert normalise_source("Straße") == normalise_source("STRASSE")
    assert clean_text(" a\r\nb ") == "a\nb"
    assert clean_text("tab\there") == "tab\there"
    for bad in ("", "   ", "\x00", "x\u2028y", "z" * (MAX_TEXT_CHARS + 1)):
        with pytest.raises(ValueError):
            clean_text(bad)


@pytest.mark.parametrize(
    ("tag", "wanted", "rank"),
    [
        ("en", "en", 0),
        ("en-US", "en", 1),
        ("EN_gb", "en", 1),
        ("pt-BR", "pt-BR", 0),
        ("pt", "pt-BR", 1),
        ("pt-PT", "pt-BR", None),
        ("zh-Hant", "zh-TW", 1),
        ("zh-Hans", "zh-TW", None),
        ("zh-Hant-TW", "zh-TW", 0),
        ("es", "en", None),
        (None, "en", None),
    ],
)
def test_language_rank(tag: str | None, wanted: str, rank: int | None) -> None:
    assert language_rank(tag, wanted) == rank
