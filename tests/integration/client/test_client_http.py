"""The client library against the real service: a video round trip with progress, a PO file localized."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest
import srt
from mediatrans_client import Client, NotFoundError, Task
from mediatrans_client.file_localization import FileLocalizer
from mediatrans_client.l10n import load

from tests.integration.conftest import Accounts
from tests.support.media import make_video
from tests.support.text import recall

pytestmark = [pytest.mark.serve, pytest.mark.models]

SPEECH = "The weather is nice today. We walk to the market and buy fresh bread and apples."


@pytest.fixture
def api(serve_base_url: str, accounts: Accounts) -> Client:
    _account, token = accounts.create()
    with Client(serve_base_url, token, timeout=60) as client:
        yield client


def test_video_round_trip_reports_monotonic_progress(api: Client, tmp_path: Path) -> None:
    video = make_video(tmp_path / "talk.mp4", container="mp4", speech_text=SPEECH)
    seen: list[Task] = []
    task = api.video.translate(
        video, target_lang="es", source_lang="en", output_format="all", wait=True, on_progress=seen.append, poll_interval=0.5,
        timeout=300,
    )  # fmt: skip
    assert task.status == "completed" and task.progress == 100
    progress = [t.progress or 0 for t in seen]
    assert progress == sorted(progress) and progress[-1] == 100 and len(seen) >= 2
    assert seen[-1].status == "completed"
    assert all(t.stage for t in seen if t.status == "processing")
    files = api.video.download(task, tmp_path / "out")
    assert {p.suffix for p in files} >= {".srt", ".vtt", ".ass", ".mp4"}
    cues = list(srt.parse(next(p for p in files if p.suffix == ".srt").read_text(encoding="utf-8")))
    assert cues and recall(SPEECH, " ".join(c.content for c in cues)) < 0.5  # Spanish, not the English heard
    with pytest.raises(NotFoundError) as missing:
        api.video.get("0" * 32)
    assert missing.value.request_id and missing.value.status == 404


PO = r"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

#. Title screen button
#: ui/title.gd:12
msgctxt "menu"
msgid "New game"
msgstr ""

# Translator: keep it short
msgid "Save the game"
msgstr ""

#, no-translate
msgid "NOVA"
msgstr ""

#, max-length:12
msgid "Open the inventory"
msgstr ""

msgid "The dragon sleeps.\nDo not wake it."
msgstr ""

msgid "You found %d coin."
msgid_plural "You found %d coins."
msgstr[0] ""
msgstr[1] ""
"""


def test_a_po_file_is_localized_keeping_keys_comments_and_plurals(api: Client, tmp_path: Path) -> None:
    source = tmp_path / "game.po"
    source.write_text(PO, encoding="utf-8")
    catalog = load(source, "en")
    report = FileLocalizer(api.game, "en", ["es", "fr"], content_type="ui", genre="rpg", tone="epic").run(catalog)
    assert report.requests == 2  # the unlimited strings in one batch, the limited one alone
    written = catalog.write(tmp_path / "out", report.translations)
    original = polib.pofile(str(source))
    for path in written:
        po = polib.pofile(str(path))
        assert [(e.msgctxt, e.msgid) for e in po] == [(e.msgctxt, e.msgid) for e in original]
        by_id = {e.msgid: e for e in po}
        assert by_id["New game"].comment == "Title screen button" and by_id["New game"].occurrences == [("ui/title.gd", "12")]
        assert by_id["Save the game"].tcomment == "Translator: keep it short"
        assert by_id["NOVA"].msgstr == "" and "no-translate" in by_id["NOVA"].flags
        assert len(by_id["Open the inventory"].msgstr) <= 12
        assert by_id["The dragon sleeps.\nDo not wake it."].msgstr.count("\n") == 1
        plural = by_id["You found %d coin."]
        assert len(plural.msgstr_plural) == 2 and all("%d" in form for form in plural.msgstr_plural.values())
        assert po.metadata["Language"] in ("es", "fr") and "nplurals=2" in po.metadata["Plural-Forms"]
        translated = [e for e in po if e.msgstr and e.msgid != e.msgstr]
        assert len(translated) >= 3, [(e.msgid, e.msgstr) for e in po]
