"""Batching of localization files: under the request limit, line-mapped back, limited strings alone, duplicates once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polib
import pytest

from mediatrans_client.file_localization import MAX_REQUEST_CHARS, FileLocalizer, Segment, plan_batches
from mediatrans_client.l10n import load
from mediatrans_client.models import LocalizationResult


class LineService:
    """Stands in for ``/v1/game/localization`` with the contract's line-for-line behaviour and ``max_length`` cut."""

    def __init__(self, break_lines_once: bool = False) -> None:
        self.calls: list[dict[str, Any]] = []
        self.break_lines_once = break_lines_once

    def localize(
        self, text: str, source_lang: str, target_langs: Sequence[str], *, content_type: str = "ui", **options: Any
    ) -> LocalizationResult:
        assert len(text) <= MAX_REQUEST_CHARS
        self.calls.append({"text": text, "targets": list(target_langs), "content_type": content_type, **options})
        translations, shortened = {}, []
        for lang in target_langs:
            out = "\n".join(f"{lang}:{line}" if line else "" for line in text.split("\n"))
            limit = options.get("max_length")
            if limit is not None and len(out) > limit:
                out, _ = out[: limit - 1] + "…", shortened.append(lang)
            if self.break_lines_once and "\n" in out:
                out = out.replace("\n", " ")
            translations[lang] = out
        if self.break_lines_once and "\n" in text:
            self.break_lines_once = False
        return LocalizationResult(original=text, translations=translations, content_type=content_type, shortened=shortened)


PO = r"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

#. Main menu button
msgctxt "menu"
msgid "Start"
msgstr ""

msgctxt "verb"
msgid "Start"
msgstr ""

#, max-length:8
msgid "Continue the adventure"
msgstr ""

#, no-translate
msgid "NOVA ENGINE"
msgstr ""

msgid "A brave hero\nwalks alone."
msgstr ""

msgid "%d sword"
msgid_plural "%d swords"
msgstr[0] ""
msgstr[1] ""

msgid "Start again"
msgstr ""
"""


def po_file(tmp_path: Path) -> Path:
    path = tmp_path / "strings.po"
    path.write_text(PO, encoding="utf-8")
    return path


def test_strings_share_requests_and_come_back_line_for_line(tmp_path: Path) -> None:
    service = LineService()
    catalog = load(po_file(tmp_path), "en")
    report = FileLocalizer(service, "en", ["es", "de"], genre="rpg", tone="epic").run(catalog)
    # One batch for the unlimited strings (the duplicate "Start" sent once), one request for the limited string.
    assert report.requests == len(service.calls) == 2
    batch = next(call for call in service.calls if "max_length" not in call)
    assert batch["text"].split("\n").count("Start") == 1
    assert batch["genre"] == "rpg" and batch["tone"] == "epic" and batch["targets"] == ["es", "de"]
    for lang in ("es", "de"):
        got = report.translations[lang]
        assert got["menu\x04Start"].text == got["verb\x04Start"].text == f"{lang}:Start"
        assert got["A brave hero\nwalks alone."].text == f"{lang}:A brave hero\n{lang}:walks alone."
        assert got["%d sword"].text == f"{lang}:%d sword" and got["%d sword"].plural == f"{lang}:%d swords"
        assert got["Start again"].text == f"{lang}:Start again"
        assert "NOVA ENGINE" not in got  # untranslatable: never sent, written unchanged
    assert "NOVA ENGINE" not in "".join(call["text"] for call in service.calls)
    assert report.untranslatable == 1


def test_a_limited_string_is_sent_alone_and_reported_when_cut(tmp_path: Path) -> None:
    service = LineService()
    report = FileLocalizer(service, "en", ["es", "de"]).run(load(po_file(tmp_path), "en"))
    limited = [call for call in service.calls if "max_length" in call]
    assert limited == [{"text": "Continue the adventure", "targets": ["es", "de"], "content_type": "ui", "max_length": 8}]
    assert {(hit.key, hit.lang, hit.max_length) for hit in report.shortened} == {
        ("Continue the adventure", "es", 8),
        ("Continue the adventure", "de", 8),
    }
    assert all(len(hit.translation) <= 8 for hit in report.shortened)


def test_a_global_max_length_applies_to_strings_the_file_gives_none(tmp_path: Path) -> None:
    service = LineService()
    FileLocalizer(service, "en", ["es"], max_length=40).run(load(po_file(tmp_path), "en"))
    limits = {call["text"]: call["max_length"] for call in service.calls}
    assert len(limits) == len(service.calls) == 6  # every string alone, the duplicate "Start" once
    assert limits["Continue the adventure"] == 8  # the file's own limit wins
    assert limits["Start again"] == limits["A brave hero\nwalks alone."] == limits["%d swords"] == 40


def test_a_batch_whose_lines_do_not_map_back_is_resent_string_by_string(tmp_path: Path) -> None:
    service = LineService(break_lines_once=True)
    report = FileLocalizer(service, "en", ["es"]).run(load(po_file(tmp_path), "en"))
    got = report.translations["es"]
    assert got["Start again"].text == "es:Start again"
    assert got["A brave hero\nwalks alone."].text == "es:A brave hero\nes:walks alone."
    assert report.requests == len(service.calls) > 2


def test_batches_stay_under_the_request_limit_and_keep_order() -> None:
    segments = [Segment(f"line {i} " + "x" * 900, None) for i in range(200)]
    batches = plan_batches(segments, 10_000)
    assert [s for batch in batches for s in batch] == segments
    assert all(len("\n".join(s.text for s in batch)) <= 10_000 for batch in batches)
    assert len(batches) == pytest.approx(200 * 908 / 10_000, abs=3)


def test_the_written_po_file_carries_the_translations(tmp_path: Path) -> None:
    catalog = load(po_file(tmp_path), "en")
    report = FileLocalizer(LineService(), "en", ["ru"]).run(catalog)
    (written,) = catalog.write(tmp_path / "out", report.translations)
    po = polib.pofile(str(written))
    plural = next(e for e in po if e.msgid_plural)
    assert len(plural.msgstr_plural) == 3  # Russian has three plural forms
    assert plural.msgstr_plural[0] == "ru:%d sword" and plural.msgstr_plural[2] == "ru:%d swords"
    assert next(e for e in po if e.msgid == "NOVA ENGINE").msgstr == ""
    assert next(e for e in po if e.msgctxt == "menu").comment == "Main menu button"


def test_every_language_the_service_lists_has_a_plural_rule() -> None:
    yaml = pytest.importorskip("yaml")
    from conftest import SERVICE_ROOT
    from mediatrans_client.l10n.plurals import plural_rule

    listed = yaml.safe_load((SERVICE_ROOT / "configs" / "languages.yaml").read_text(encoding="utf-8"))
    codes = [str(row["code"]) for row in listed["languages"]]
    codes += [str(v) for variants in listed.get("variants", {}).values() for v in variants]
    assert len(codes) > 50
    for code in codes:
        nplurals, expression = plural_rule(code)
        assert 1 <= nplurals <= 6 and expression, code
