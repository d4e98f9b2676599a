"""The whole pipeline on generated media: every output format, ranges, errors."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from urllib.parse import urlsplit

import pysubs2
import pytest
import srt
import webvtt

from core.files import LocalFileStore
from engines.errors import NoAudioTrack, UnsupportedLanguage, UnsupportedMedia
from pipelines.progress import Progress
from pipelines.video_translation import translate_video
from tests.integration.pipeline.conftest import Recorder, local_deps, spec_for
from tests.support.media import make_video, not_a_video, silent_video
from tests.support.text import recall, words

pytestmark = pytest.mark.models

SPEECH = (
    "The old lighthouse keeper walked along the beach every morning. "
    "He counted the ships on the horizon and wrote their names in a small book. "
    "In the evening he cooked fish and listened to the radio."
)


def stored_text(store: LocalFileStore, url: str) -> str:
    key = urlsplit(url).path.removeprefix("/v1/files/")
    return store.open_path(key).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def speech_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("media") / "talk.mp4", container="mp4", speech_text=SPEECH)


async def run(options: dict, media: Path, whisper, translator, store, tmp_path: Path, recorder: Recorder | None = None):
    recorder = recorder or Recorder()
    progress = Progress(recorder, min_interval_s=0)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return await translate_video(spec_for(media, **options), local_deps(whisper, translator, store), progress, work)


async def test_srt_in_spanish_with_progress(speech_video, whisper, translator, store, tmp_path) -> None:
    recorder = Recorder()
    result = await run({"target_lang": "es"}, speech_video, whisper, translator, store, tmp_path, recorder)
    assert result["source_lang"] == "en" and result["char_count"] > 50
    assert result["duration"] == pytest.approx(float(result["duration"]), abs=0.01) and result["duration"] > 5
    cues = list(srt.parse(stored_text(store, result["subtitle_url"])))
    assert len(cues) >= 3
    heard = " ".join(c.content for c in cues)
    assert len(words(heard)) >= 10 and recall(SPEECH, heard) < 0.5, heard  # translated, not passed through
    for cue in cues:
        assert all(len(line) <= 42 for line in cue.content.splitlines()) and len(cue.content.splitlines()) <= 2
        assert (cue.end - cue.start).total_seconds() <= 7.0  # the standard preset's longest cue
    assert all(a.end < b.start for a, b in itertools.pairwise(cues))  # 2 frames apart at least
    qc = result["qc"]
    assert qc["preset"]["name"] == "standard" and qc["preset"]["max_cps"] == 17.0 and qc["cues"] == len(cues)
    assert set(qc["rules"]) >= {"line_length", "reading_speed", "min_gap", "shot_change"}
    stages = [u[0] for u in recorder.updates]
    assert stages[0] == "validating" and stages[-1] == "packaging"
    assert [s for s in dict.fromkeys(stages)] == [
        "validating",
        "extracting",
        "recognizing",
        "translating",
        "synthesizing",
        "packaging",
    ]
    percents = [u[1] for u in recorder.updates]
    assert percents == sorted(percents) and percents[-1] < 100


async def test_all_formats_bilingual_and_burned(speech_video, whisper, translator, store, tmp_path) -> None:
    options = {
        "target_lang": "es",
        "output_format": "all",
        "bilingual": True,
        "subtitle_position": "top",
        "subtitle_bg": "#00000080",
    }
    result = await run(options, speech_video, whisper, translator, store, tmp_path)
    assert set(result["files"]) == {"srt", "vtt", "ass", "burned_video", "ttml", "ebu_tt_d"}
    vtt = list(webvtt.from_buffer(__import__("io").StringIO(stored_text(store, result["files"]["vtt"]))))
    assert vtt and all(len(c.text.splitlines()) >= 2 for c in vtt)  # original above translation
    ass = pysubs2.SSAFile.from_string(stored_text(store, result["files"]["ass"]))
    assert ass.styles and any(style.alignment == 8 for style in ass.styles.values())  # top
    original = " ".join(e.plaintext for e in ass.events)
    assert recall(SPEECH, original) >= 0.6, original  # the bilingual cues carry the recognised English
    video = urlsplit(result["files"]["burned_video"]).path.removeprefix("/v1/files/")
    assert store.open_path(video).stat().st_size > 10_000


async def test_range_keeps_original_timeline(speech_video, whisper, translator, store, tmp_path) -> None:
    result = await run(
        {"target_lang": "es", "source_lang": "en", "start_time": 4.0, "end_time": 9.0},
        speech_video,
        whisper,
        translator,
        store,
        tmp_path,
    )
    cues = list(srt.parse(stored_text(store, result["subtitle_url"])))
    assert cues
    assert cues[0].start.total_seconds() >= 3.9
    assert cues[-1].end.total_seconds() <= 9.5


async def test_profanity_filter(tmp_path, whisper, translator, store) -> None:
    media = make_video(tmp_path / "rude.mp4", container="mp4", speech_text="This machine is shit. I told the bastard to fix it.")
    options = {"target_lang": "en", "source_lang": "en"}
    plain = list(srt.parse(stored_text(store, (await run(options, media, whisper, translator, store, tmp_path))["subtitle_url"])))
    filtered_url = (await run({**options, "profanity_filter": True}, media, whisper, translator, store, tmp_path))["subtitle_url"]
    filtered = list(srt.parse(stored_text(store, filtered_url)))
    assert recall("This machine is told the to fix it", " ".join(c.content for c in plain)) >= 0.6
    assert len(filtered) == len(plain)
    for before, after in zip(plain, filtered, strict=True):  # listed words masked, every other word unchanged
        for was, now in zip(before.content.split(), after.content.split(), strict=True):
            if censored(was):
                assert "***" in now and not censored(now), (was, now)
            else:
                assert now == was
    assert not any(censored(w) for c in filtered for w in c.content.split())


def censored(word: str) -> bool:
    return bool(re.fullmatch(r"\W*(shit|bastard)\W*", word.lower()))


async def test_errors(tmp_path, whisper, translator, store) -> None:
    with pytest.raises(NoAudioTrack):
        await run({"target_lang": "es"}, silent_video(tmp_path / "s.mp4"), whisper, translator, store, tmp_path)
    with pytest.raises(UnsupportedMedia):
        await run({"target_lang": "es"}, not_a_video(tmp_path / "t.mp4"), whisper, translator, store, tmp_path)
    speech = make_video(tmp_path / "en.mp4", container="mp4", speech_text="Good morning everyone.")
    with pytest.raises(UnsupportedLanguage):
        await run({"target_lang": "ja", "source_lang": "en"}, speech, whisper, translator, store, tmp_path)
