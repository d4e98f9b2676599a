"""A target language the service refuses (400 1002) does not sink a file's other targets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polib
import pytest

from conftest import LoopbackServer, Recorded, Reply
from mediatrans_client import Client, InvalidRequestError, ServerError
from mediatrans_client.file_localization import FileLocalizer
from mediatrans_client.l10n import load

MEDIATRANS = Path(sys.executable).with_name("mediatrans")

PO = r"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

msgid "Start"
msgstr ""

#, max-length:12
msgid "Continue"
msgstr ""

msgid "%d sword"
msgid_plural "%d swords"
msgstr[0] ""
msgstr[1] ""
"""


def refusing(unserved: set[str], status: int = 400, code: int = 1002) -> Any:
    """A ``/v1/game/localization`` that refuses any request naming one of ``unserved``, as the service does."""

    def localize(request: Recorded) -> Reply:
        body = json.loads(request.body)
        refused = [lang for lang in body["target_langs"] if lang in unserved]
        if refused:
            message = f"target_langs: {refused[0]!r} is not a supported language code."
            return Reply(status, {"code": code, "message": message, "request_id": f"rid-{refused[0]}"})
        lines = body["text"].split("\n")
        translations = {lang: "\n".join(f"{lang}:{line}" for line in lines) for lang in body["target_langs"]}
        return Reply(200, {"original": body["text"], "translations": translations, "content_type": body["content_type"]})

    return localize


def po_file(tmp_path: Path) -> Path:
    path = tmp_path / "strings.po"
    path.write_text(PO, encoding="utf-8")
    return path


def sent_targets(server: LoopbackServer) -> list[list[str]]:
    return [json.loads(r.body)["target_langs"] for r in server.requests_to("POST", "/v1/game/localization")]


def test_the_served_targets_are_translated_and_the_refused_one_reported(
    server: LoopbackServer, client: Client, tmp_path: Path
) -> None:
    server.route("POST", "/v1/game/localization")(refusing({"ja"}))
    report = FileLocalizer(client.game, "en", ["es", "ja", "de"]).run(load(po_file(tmp_path), "en"))
    assert report.succeeded == ["es", "de"] and list(report.failed) == ["ja"]
    refusal = report.failed["ja"]
    assert isinstance(refusal, InvalidRequestError) and refusal.code == 1002 and refusal.request_id == "rid-ja"
    for lang in ("es", "de"):
        assert report.translations[lang]["Start"].text == f"{lang}:Start"
        assert report.translations[lang]["Continue"].text == f"{lang}:Continue"
        assert report.translations[lang]["%d sword"].plural == f"{lang}:%d swords"
    # Each target alone once, then only the served ones; nothing translated twice, refusals not billed.
    targets = sent_targets(server)
    assert targets.count(["ja"]) == 1 and all("ja" not in t for t in targets[targets.index(["ja"]) + 1 :])
    assert report.billed_characters == (len("Start\n%d sword\n%d swords") + len("Continue")) * 2


def test_every_target_refused_leaves_no_translation(server: LoopbackServer, client: Client, tmp_path: Path) -> None:
    server.route("POST", "/v1/game/localization")(refusing({"xx", "yy"}))
    report = FileLocalizer(client.game, "en", ["xx", "yy"], concurrency=1).run(load(po_file(tmp_path), "en"))
    assert report.translations == {} and sorted(report.failed) == ["xx", "yy"]
    assert sent_targets(server) == [["xx", "yy"], ["xx"], ["yy"]]  # the second batch is never sent


def test_other_errors_still_fail_the_run(server: LoopbackServer, tmp_path: Path) -> None:
    server.route("POST", "/v1/game/localization")(refusing({"ja"}, status=500, code=5001))
    with Client(server.base_url, "tok", max_attempts=1) as client, pytest.raises(ServerError):
        FileLocalizer(client.game, "en", ["es", "ja"]).run(load(po_file(tmp_path), "en"))
    server.route("POST", "/v1/game/localization")(refusing({"es", "ja"}, code=1001))  # a bad field, not a language
    with Client(server.base_url, "tok", max_attempts=1) as client, pytest.raises(InvalidRequestError):
        FileLocalizer(client.game, "en", ["es", "ja"]).run(load(po_file(tmp_path), "en"))


class TogetherOnly:
    """Refuses the languages together but serves each alone: the refusal is not one target's, so it is raised."""

    def localize(self, text: str, source_lang: str, target_langs: Sequence[str], **options: Any) -> Any:
        from mediatrans_client.models import LocalizationResult

        if len(target_langs) > 1:
            raise InvalidRequestError(1002, "pair not available", status=400)
        return LocalizationResult(original=text, translations={lang: text for lang in target_langs})


def test_a_refusal_no_single_target_causes_is_raised(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequestError):
        FileLocalizer(TogetherOnly(), "en", ["es", "de"], concurrency=1).run(load(po_file(tmp_path), "en"))


# -- the command line ------------------------------------------------------------------------------------------------


@pytest.fixture
def env(server: LoopbackServer, tmp_path: Path) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEDIATRANS_")},
        "MEDIATRANS_BASE_URL": server.base_url,
        "MEDIATRANS_TOKEN": "mt_cli_token",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "COLUMNS": "200",
    }


def localize(env: dict[str, str], source: Path, out: Path, targets: str, *flags: str) -> subprocess.CompletedProcess[str]:
    args = [*flags, "game", "localize", str(source), "--from", "en", "--to", targets, "-o", str(out)]
    return subprocess.run([str(MEDIATRANS), *args], env=env, capture_output=True, text=True, timeout=60)


def test_cli_writes_the_served_targets_and_exits_11(server: LoopbackServer, env: dict[str, str], tmp_path: Path) -> None:
    server.route("POST", "/v1/game/localization")(refusing({"ja"}))
    out = tmp_path / "out"
    result = localize(env, po_file(tmp_path), out, "es,ja,de")
    assert result.returncode == 11, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["de", "es"]
    for lang in ("es", "de"):
        entries = {e.msgid: e for e in polib.pofile(str(out / lang / "strings.po"))}
        assert entries["Start"].msgstr == f"{lang}:Start"
    assert "error: ja not localized: target_langs: 'ja' is not a supported language code. (code 1002, HTTP 400)" in result.stderr
    assert str(out / "es" / "strings.po") in result.stdout and "ja" not in result.stdout

    as_json = localize(env, po_file(tmp_path), tmp_path / "json-out", "es,ja,de", "--json")
    assert as_json.returncode == 11
    report = json.loads(as_json.stdout)
    assert report["targets"] == ["es", "de"] and len(report["files"]) == 2
    assert [(f["lang"], f["code"], f["status"], f["request_id"]) for f in report["failed"]] == [("ja", 1002, 400, "rid-ja")]


def test_cli_with_no_target_served_writes_nothing_and_exits_5(
    server: LoopbackServer, env: dict[str, str], tmp_path: Path
) -> None:
    server.route("POST", "/v1/game/localization")(refusing({"xx", "ja"}))
    out = tmp_path / "out"
    result = localize(env, po_file(tmp_path), out, "xx,ja")
    assert result.returncode == 5 and not out.exists()
    assert "error: xx not localized" in result.stderr and "error: ja not localized" in result.stderr
    as_json = localize(env, po_file(tmp_path), out, "xx,ja", "--json")
    assert as_json.returncode == 5 and as_json.stdout == ""
    error = json.loads(as_json.stderr)["error"]
    assert error["code"] == 1002 and [f["lang"] for f in error["failed"]] == ["xx", "ja"]
