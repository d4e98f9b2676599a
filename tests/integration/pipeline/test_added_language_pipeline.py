"""Added languages in-process (docs/video-languages.md): a task's stored transcript translated into another language.

The parent is the real pipeline (Whisper → apertium, en → es); the added language (fr) runs with a
recognizer that fails on any call, so it can only have translated the stored segments.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import srt

from core.files import LocalFileStore
from core.specs.added_language import AddLanguageRequest, added_language_spec
from core.specs.revision import ReviseRequest, RevisionOf, revision_spec
from core.specs.transcript import read_transcript
from core.specs.translation_of import TranslationOf
from engines.errors import InvalidInput
from pipelines.progress import Progress
from pipelines.video_language import add_language
from pipelines.video_revision import revise_video
from pipelines.video_translation import translate_video
from tests.integration.pipeline.conftest import Recorder, local_deps, spec_for
from tests.integration.pipeline.test_dubbing import LINES
from tests.integration.pipeline.test_revision_pipeline import task_deps, text_at
from tests.support.scenes import build_scene, scene_video

pytestmark = pytest.mark.models


class NoRecognition:
    """An added language must not recognize: any call fails the test."""

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("an added language recognized the audio")


@pytest.fixture(scope="module")
def scene_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scene_video(build_scene(LINES, 14.0), tmp_path_factory.mktemp("added") / "scene.mp4")


async def test_an_added_language_translates_the_parents_segments_without_recognizing(
    scene_path, whisper, translator, store: LocalFileStore, tmp_path: Path
) -> None:
    parent_spec = spec_for(scene_path, target_lang="es", source_lang="en", output_format="srt")
    first = task_deps(local_deps(whisper, translator, store), store, "t0")
    await translate_video(parent_spec, first, Progress(Recorder()), tmp_path)
    parent = await read_transcript(store, "t0")
    assert parent is not None and len(parent.segments) >= 3

    origin = TranslationOf(parent_task_id="t0", root_task_id="t0")
    spec = added_language_spec(parent_spec, AddLanguageRequest(target_lang="fr", output_format="all"), "fr", None, origin)
    deps = dataclasses.replace(task_deps(local_deps(whisper, translator, store), store, "t1"), transcribe=NoRecognition())
    recorder = Recorder()
    work = tmp_path / "work-fr"
    work.mkdir()
    result = await add_language(spec, deps, Progress(recorder, revision=True, min_interval_s=0), work)

    stages = {stage for stage, _, _ in recorder.updates}
    assert stages <= {"validating", "translating", "synthesizing", "packaging"} and "translating" in stages
    added = await read_transcript(store, "t1")
    assert added is not None and (added.source_lang, added.target_lang) == ("en", "fr")
    assert added.parent_task_id == "t0" and added.root_task_id == "t0" and added.revision == 0
    assert [(s.id, s.source, s.start, s.end, s.speaker) for s in added.segments] == [
        (s.id, s.source, s.start, s.end, s.speaker) for s in parent.segments
    ]  # the parent's exact source segments
    french = [s.translation for s in added.segments]
    assert all(french) and french != [s.translation for s in parent.segments] and french != [s.source for s in added.segments]
    subtitles = " ".join(c.content for c in srt.parse(text_at(store, result["files"]["srt"])))
    assert subtitles.split() == " ".join(french).split()
    assert result["source_lang"] == "en" and result["files"]["burned_video"] and result["qc"]["cues"] >= len(added.segments)

    # the added language is a normal task: it can be revised in turn
    request = ReviseRequest.model_validate({"segments": [{"id": added.segments[0].id, "translation": "Bonjour, Anne."}]})
    revision = RevisionOf(parent_task_id="t1", root_task_id="t0", number=1, edits=request.segments)
    work = tmp_path / "work-revise"
    work.mkdir()
    deps2 = dataclasses.replace(task_deps(local_deps(whisper, translator, store), store, "t2"), transcribe=NoRecognition())
    await revise_video(revision_spec(spec, request, revision), deps2, Progress(Recorder(), revision=True), work)
    revised = await read_transcript(store, "t2")
    assert revised is not None and revised.target_lang == "fr" and revised.segments[0].translation == "Bonjour, Anne."
    assert revised.segments[1:] == added.segments[1:]


async def test_a_parent_whose_transcript_is_gone_fails_the_task_clearly(whisper, translator, store, scene_path, tmp_path) -> None:
    origin = TranslationOf(parent_task_id="gone", root_task_id="gone")
    spec = added_language_spec(spec_for(scene_path, target_lang="es"), AddLanguageRequest(target_lang="fr"), "fr", None, origin)
    deps = dataclasses.replace(task_deps(local_deps(whisper, translator, store), store, "t9"), transcribe=NoRecognition())
    with pytest.raises(InvalidInput, match="no longer kept"):
        await add_language(spec, deps, Progress(Recorder(), revision=True), tmp_path)
