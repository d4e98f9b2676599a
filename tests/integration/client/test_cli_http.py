"""The ``mediatrans`` command as a subprocess against the real service: results, files, exit codes, ``--json``."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import srt

from tests.integration.conftest import Accounts
from tests.support.media import make_video

pytestmark = [pytest.mark.serve, pytest.mark.models]

MEDIATRANS = Path(sys.executable).with_name("mediatrans")


@pytest.fixture
def cli_env(serve_base_url: str, accounts: Accounts, tmp_path: Path) -> dict[str, str]:
    _account, token = accounts.create()
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEDIATRANS_")},
        "MEDIATRANS_BASE_URL": serve_base_url,
        "MEDIATRANS_TOKEN": token,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }


def mediatrans(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(MEDIATRANS), *args], env=env, capture_output=True, text=True, timeout=300)


def test_video_translate_waits_and_downloads(cli_env: dict[str, str], tmp_path: Path) -> None:
    video = make_video(tmp_path / "hello.mp4", container="mp4", speech_text="Hello and welcome to the show.")
    out = tmp_path / "subs"
    result = mediatrans(cli_env, "--json", "video", "translate", str(video), "--to", "es", "--from", "en", "--wait",
                        "--out", str(out), "--poll-interval", "1")  # fmt: skip
    assert result.returncode == 0, result.stderr
    task = json.loads(result.stdout)
    assert task["status"] == "completed" and task["progress"] == 100
    (subtitle,) = (Path(p) for p in task["downloaded"])
    assert subtitle.parent == out and list(srt.parse(subtitle.read_text(encoding="utf-8")))
    status = mediatrans(cli_env, "--json", "video", "status", task["task_id"])
    assert status.returncode == 0 and json.loads(status.stdout)["status"] == "completed"


def test_languages_grammar_and_tts(cli_env: dict[str, str], tmp_path: Path) -> None:
    listed = mediatrans(cli_env, "--json", "languages")
    assert listed.returncode == 0 and {"en", "es"} <= {lang["code"] for lang in json.loads(listed.stdout)["languages"]}
    essay = tmp_path / "essay.txt"
    essay.write_text("This sentence is fine.\nShe go to the school yesterday and buyed a apple.\n", encoding="utf-8")
    checked = mediatrans(cli_env, "--json", "grammar", "check", str(essay), "--lang", "en")
    assert checked.returncode == 0, checked.stderr
    report = json.loads(checked.stdout)
    assert report["issues"] and all(issue["line"] == 2 for issue in report["issues"])
    for issue in report["issues"]:
        line = essay.read_text(encoding="utf-8").splitlines()[issue["line"] - 1]
        assert line[issue["column"] - 1 : issue["column"] - 1 + issue["length"]] == issue["wrong"]
    fixed = tmp_path / "fixed.txt"
    assert mediatrans(cli_env, "grammar", "check", str(essay), "--lang", "en", "--fix", "-o", str(fixed)).returncode == 0
    assert fixed.read_text(encoding="utf-8") != essay.read_text(encoding="utf-8")
    assert mediatrans(cli_env, "grammar", "check", str(essay), "--lang", "en", "--strict").returncode == 1
    audio = tmp_path / "hello.wav"
    spoken = mediatrans(cli_env, "tts", "Hello there, welcome aboard.", "--lang", "en", "-o", str(audio))
    assert spoken.returncode == 0, spoken.stderr
    assert audio.read_bytes()[:4] == b"RIFF" and audio.stat().st_size > 10_000
    natives = mediatrans(cli_env, "--json", "voice", "list", "--native")
    assert natives.returncode == 0 and json.loads(natives.stdout)["voices"]


def test_game_localize_a_csv_sheet(cli_env: dict[str, str], tmp_path: Path) -> None:
    sheet = tmp_path / "strings.csv"
    rows = [["key", "comment", "max_length", "en"], ["menu.play", "Main menu", "", "Play"],
            ["menu.options", "", "", "Options"], ["tip.1", "Loading screen", "", "Potions restore health."],
            ["btn.inventory", "Button", "10", "Open the inventory"]]  # fmt: skip
    with sheet.open("w", newline="", encoding="utf-8") as out:
        csv.writer(out).writerows(rows)
    result = mediatrans(cli_env, "--json", "game", "localize", str(sheet), "--from", "en", "--to", "es,ca",
                        "--content-type", "ui", "--genre", "rpg", "-o", str(tmp_path / "out"))  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["strings"] == 4 and report["requests"] == 2
    with (tmp_path / "out" / "strings.csv").open(newline="", encoding="utf-8") as written:
        table = list(csv.DictReader(written))
    assert [row["key"] for row in table] == [row[0] for row in rows[1:]]
    assert [row["comment"] for row in table] == [row[1] for row in rows[1:]]
    for row in table:
        assert row["es"] and row["ca"] and row["en"] in {r[3] for r in rows[1:]}
    assert len(table[-1]["es"]) <= 10 and len(table[-1]["ca"]) <= 10


def test_errors_exit_with_their_class_code(cli_env: dict[str, str]) -> None:
    missing = mediatrans(cli_env, "--json", "video", "status", "0" * 32)
    assert missing.returncode == 4
    error = json.loads(missing.stderr)["error"]
    assert error["status"] == 404 and error["request_id"] and error["type"] == "NotFoundError"
    denied = mediatrans({**cli_env, "MEDIATRANS_TOKEN": "mt_not_a_token"}, "--json", "account")
    assert denied.returncode == 3 and json.loads(denied.stderr)["error"]["status"] == 401
    bad = mediatrans(cli_env, "--json", "game", "localize", __file__, "--from", "en", "--to", "es")
    assert bad.returncode == 5  # a .py file is no localization format
