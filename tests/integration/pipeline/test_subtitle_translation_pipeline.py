"""A client's subtitle file through the real translation and writers (docs/subtitle-translation.md).

apertium translates en → es; the recognizer fails on any call, so the cues can only come from the file.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import srt

from core.files import LocalFileStore
from core.specs.revision import ReviseRequest, RevisionOf, revision_spec
from core.specs.transcript import read_transcript
from core.specs.video import SubtitleSource, UploadSource, VideoJobSpec
from engines.translation.text_language import detect_text_language
from pipelines.progress import Progress
from pipelines.subtitle_translation import translate_subtitles
from pipelines.video_revision import revise_video
from tests.integration.pipeline.conftest import Recorder, local_deps
from tests.integration.pipeline.test_added_language_pipeline import NoRecognition
from tests.integration.pipeline.test_revision_pipeline import task_deps, text_at

pytestmark = pytest.mark.models

SRT = """1
00:00:01,250 --> 00:00:03,900
[Anna] Good morning, my friend.

2
00:00:04,100 --> 00:00:06,500
[Ben] The bus leaves at nine
from the old station.

3
00:00:06,700 --> 00:00:09,000
We will buy fresh bread
at the market.

4
00:00:09,400 --> 00:00:11,800
[Anna] Thank you very much.
"""


def subtitle_deps(whisper, translator, store: LocalFileStore, task_id: str, file: Path):
    async def obtain(source, workdir: Path) -> Path:
        assert isinstance(source, SubtitleSource)
        return file

    deps = task_deps(local_deps(whisper, translator, store), store, task_id)
    return dataclasses.replace(deps, obtain=obtain, transcribe=NoRecognition())


async def test_a_subtitle_file_keeps_its_times_and_speakers_in_the_translation(whisper, translator, store, tmp_path) -> None:
    file = tmp_path / "talk.srt"
    file.write_text(SRT, encoding="utf-8")
    spec = VideoJobSpec(
        target_lang="es", source_lang="en", output_format="all", source=SubtitleSource(key="u/talk.srt", filename="talk.srt")
    )
    recorder = Recorder()
    result = await translate_subtitles(spec, subtitle_deps(whisper, translator, store, "s0", file), Progress(recorder), tmp_path)

    assert {stage for stage, _, _ in recorder.updates} <= {"validating", "translating", "synthesizing", "packaging"}
    cues = list(srt.parse(text_at(store, result["files"]["srt"])))
    source = list(srt.parse(SRT))
    assert cues[0].start == source[0].start and cues[-1].end <= source[-1].end  # the input's timing
    assert all(a.start >= b.start for a, b in zip(cues[1:], cues))
    assert "burned_video" not in result["files"] and result["source_lang"] == "en"
    text = " ".join(c.content for c in cues).lower()
    assert detect_text_language(text, ["en", "es"])[0] == "es" and "good morning" not in text, text  # type: ignore[index]

    transcript = await read_transcript(store, "s0")
    assert transcript is not None and transcript.speaker_labels and transcript.target_lang == "es"
    assert [s.speaker for s in transcript.segments] == ["Anna", "Ben", "Ben", "Anna"]
    assert transcript.segments[1].source == "The bus leaves at nine from the old station."
    assert transcript.segments[0].start == pytest.approx(1.25) and transcript.segments[-1].end == pytest.approx(11.8)
    assert cues[0].content.startswith("[Anna]")

    # a normal task: it can be revised
    request = ReviseRequest.model_validate({"segments": [{"id": transcript.segments[3].id, "translation": "Mil gracias."}]})
    revision = RevisionOf(parent_task_id="s0", root_task_id="s0", number=1, edits=request.segments)
    work = tmp_path / "revise"
    work.mkdir()
    revised = await revise_video(
        revision_spec(spec, request, revision), subtitle_deps(whisper, translator, store, "s1", file), Progress(Recorder()), work
    )
    assert "Mil gracias." in text_at(store, revised["files"]["vtt"])


VIDEO_SRT = """1
00:00:00,600 --> 00:00:03,000
[Anna] Good morning, my friend.

2
00:00:03,600 --> 00:00:06,000
[Ben] The train leaves at nine.

3
00:00:06,800 --> 00:00:09,200
I will buy two tickets.

4
00:00:10,000 --> 00:00:13,000
[Anna] Please wait for me at the station.

5
00:00:15,000 --> 00:00:17,000
A cue after the video's end.
"""


async def test_a_video_with_its_own_subtitles_is_burned_without_recognition(whisper, translator, store, tmp_path) -> None:
    from tests.integration.pipeline.test_dubbing import LINES
    from tests.support.scenes import build_scene, scene_video

    video = scene_video(build_scene(LINES, 14.0), tmp_path / "scene.mp4")
    file = tmp_path / "own.srt"
    file.write_text(VIDEO_SRT, encoding="utf-8")

    async def obtain(source, workdir: Path) -> Path:
        return file if isinstance(source, SubtitleSource) else Path(source.key)

    spec = VideoJobSpec(
        target_lang="es", source_lang="en", output_format="all", source=UploadSource(key=str(video)),
        subtitles=SubtitleSource(key="u/own.srt", filename="own.srt"),
    )  # fmt: skip
    deps = dataclasses.replace(
        task_deps(local_deps(whisper, translator, store), store, "v0"), obtain=obtain, transcribe=NoRecognition()
    )
    recorder = Recorder()
    result = await translate_subtitles(spec, deps, Progress(recorder), tmp_path)

    assert {stage for stage, _, _ in recorder.updates} <= {"validating", "translating", "synthesizing", "packaging"}
    assert result["files"]["burned_video"] and result["duration"] == pytest.approx(14.0, abs=0.1)
    cues = list(srt.parse(text_at(store, result["files"]["srt"])))
    assert cues[0].start.total_seconds() == pytest.approx(0.6) and cues[-1].end.total_seconds() <= 14.0 + 1e-3
    transcript = await read_transcript(store, "v0")
    assert transcript is not None and transcript.size == (320, 240) and len(transcript.segments) == 4  # the 5th is past the end
    assert [s.speaker for s in transcript.segments] == ["Anna", "Ben", "Ben", "Anna"]
