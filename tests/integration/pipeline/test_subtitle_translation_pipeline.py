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
from core.specs.video import SubtitleSource, VideoJobSpec
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
    assert "buenos" in text and "good morning" not in text, text

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
