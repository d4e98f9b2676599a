"""The whole pipeline on generated media: every output format, ranges, errors."""

from __future__ import annotations

import dataclasses
import itertools
import re
from pathlib import Path
from urllib.parse import urlsplit

import pysubs2
import pytest
import srt
import webvtt

from deployments.engines.errors import NoAudioTrack, UnsupportedLanguage, UnsupportedMedia
from pipelines.progress import Progress
from pipelines.subtitles import SubtitleStyle
from pipelines.video_translation import VideoParams, translate_video
from serve_app.files import LocalFileStore
from tests.integration.pipeline.conftest import Recorder, local_deps
from tests.support.media import make_video, not_a_video, silent_video

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


async def run(params: VideoParams, media: Path, whisper, translator, store, tmp_path: Path, recorder: Recorder | None = None):
    recorder = recorder or Recorder()
    progress = Progress(recorder, min_interval_s=0)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return await translate_video(
        params, {"kind": "upload", "path": str(media)}, local_deps(whisper, translator, store), progress, work
    )


async def test_srt_in_spanish_with_progress(speech_video, whisper, translator, store, tmp_path) -> None:
    recorder = Recorder()
    result = await run(VideoParams(target_lang="es"), speech_video, whisper, translator, store, tmp_path, recorder)
    assert result["source_lang"] == "en" and result["char_count"] > 50
    assert result["duration"] == pytest.approx(float(result["duration"]), abs=0.01) and result["duration"] > 5
    cues = list(srt.parse(stored_text(store, result["subtitle_url"])))
    assert len(cues) >= 3
    text = " ".join(c.content for c in cues).lower()
    assert any(w in text for w in ("faro", "barcos", "playa", "pescado", "radio"))
    for cue in cues:
        assert all(len(line) <= 42 for line in cue.content.splitlines()) and len(cue.content.splitlines()) <= 2
        assert (cue.end - cue.start).total_seconds() <= 5.0
    assert all(a.end <= b.start for a, b in itertools.pairwise(cues))
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
    params = VideoParams(
        target_lang="es", output_format="all", bilingual=True, style=SubtitleStyle(position="top", background="#00000080")
    )
    result = await run(params, speech_video, whisper, translator, store, tmp_path)
    assert set(result["files"]) == {"srt", "vtt", "ass", "burned_video"}
    vtt = list(webvtt.from_buffer(__import__("io").StringIO(stored_text(store, result["files"]["vtt"]))))
    assert vtt and all(len(c.text.splitlines()) >= 2 for c in vtt)  # original above translation
    ass = pysubs2.SSAFile.from_string(stored_text(store, result["files"]["ass"]))
    assert ass.styles and any(style.alignment == 8 for style in ass.styles.values())  # top
    assert "lighthouse" in " ".join(e.plaintext for e in ass.events).lower()
    video = urlsplit(result["files"]["burned_video"]).path.removeprefix("/v1/files/")
    assert store.open_path(video).stat().st_size > 10_000


async def test_range_keeps_original_timeline(speech_video, whisper, translator, store, tmp_path) -> None:
    result = await run(
        VideoParams(target_lang="es", source_lang="en", start_time=4.0, end_time=9.0),
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
    params = VideoParams(target_lang="en", source_lang="en")
    plain = stored_text(store, (await run(params, media, whisper, translator, store, tmp_path))["subtitle_url"]).lower()
    assert re.search(r"\b(shit|bastard)\b", plain)  # the words are really recognised
    filtered = await run(dataclasses.replace(params, profanity_filter=True), media, whisper, translator, store, tmp_path)
    text = stored_text(store, filtered["subtitle_url"]).lower()
    assert "***" in text and not re.search(r"\b(shit|bastard)\b", text) and "machine" in text


async def test_errors(tmp_path, whisper, translator, store) -> None:
    with pytest.raises(NoAudioTrack):
        await run(VideoParams(target_lang="es"), silent_video(tmp_path / "s.mp4"), whisper, translator, store, tmp_path)
    with pytest.raises(UnsupportedMedia):
        await run(VideoParams(target_lang="es"), not_a_video(tmp_path / "t.mp4"), whisper, translator, store, tmp_path)
    speech = make_video(tmp_path / "en.mp4", container="mp4", speech_text="Good morning everyone.")
    with pytest.raises(UnsupportedLanguage):
        await run(VideoParams(target_lang="ja", source_lang="en"), speech, whisper, translator, store, tmp_path)
