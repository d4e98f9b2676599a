"""Revisions in-process (docs/video-revisions.md): a task's stored transcript, edited and rendered again.

The first run is the real pipeline (Whisper → apertium → subtitles, Kokoro for the dub); its outputs and
``transcript.json`` go to a local file store under the task's id, where the revision reads them back.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
import srt
import webvtt

from core.files import LocalFileStore
from core.specs.revision import ReviseRequest, RevisionOf, revision_spec
from core.specs.transcript import read_transcript
from engines.errors import InvalidInput
from pipelines.dubbing.line_audio import LineAudio
from pipelines.progress import Progress
from pipelines.video_revision import revise_video
from pipelines.video_translation import translate_video
from tests.integration.pipeline.conftest import Recorder, dubbing_deps, local_deps, spec_for
from tests.integration.pipeline.test_dubbing import LINES
from tests.support.scenes import RATE, build_scene, decode, scene_video

pytestmark = pytest.mark.models


@pytest.fixture(scope="module")
def scene_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scene_video(build_scene(LINES, 14.0), tmp_path_factory.mktemp("revise") / "scene.mp4")


def task_deps(base, store: LocalFileStore, task_id: str, dubbing=None):
    """``base`` publishing under ``task_id`` and reading stored transcripts back, as the worker's wiring does."""

    async def publish(path: Path, name: str, content_type: str) -> str:
        stored = await store.put(task_id, name, path, content_type)
        return store.url(stored.key, time.time() + 3600)

    async def load(parent: str):
        return await read_transcript(store, parent)

    return dataclasses.replace(base, publish=publish, load_transcript=load, dubbing=dubbing)


def text_at(store: LocalFileStore, url: str) -> str:
    return store.open_path(urlsplit(url).path.removeprefix("/v1/files/")).read_text(encoding="utf-8")


async def _revise(parent_spec, parent_id: str, edits: list[dict], deps, tmp_path: Path, number: int = 1, **choices):
    request = ReviseRequest.model_validate({"segments": edits, **choices})
    revision = RevisionOf(parent_task_id=parent_id, root_task_id="t0", number=number, edits=request.segments)
    spec = revision_spec(parent_spec, request, revision)
    recorder = Recorder()
    work = tmp_path / f"work-{number}"
    work.mkdir()
    result = await revise_video(spec, deps, Progress(recorder, revision=True, min_interval_s=0), work)
    return spec, result, {stage for stage, _, _ in recorder.updates}


async def test_edits_reach_the_subtitles_and_nothing_is_recognized_again(scene_path, whisper, translator, store, tmp_path):
    parent_spec = spec_for(scene_path, target_lang="es", source_lang="en", output_format="srt")
    first = await translate_video(
        parent_spec, task_deps(local_deps(whisper, translator, store), store, "t0"), Progress(Recorder()), tmp_path
    )
    transcript = await read_transcript(store, "t0")
    assert transcript is not None and transcript.revision == 0 and len(transcript.segments) >= 3
    segments = transcript.segments
    old_srt = list(srt.parse(text_at(store, first["subtitle_url"])))
    assert " ".join(c.content for c in old_srt).split() == " ".join(s.translation for s in segments).split()
    for segment in segments:  # the recognized words, each inside its segment's span
        assert segment.words, segment
        for word in segment.words:
            assert segment.start - 0.5 <= word.start <= word.end <= segment.end + 0.5
            assert word.probability is not None and 0.0 <= word.probability <= 1.0
    public = transcript.public()
    assert public["qc"] == first["qc"] and public["qc"]["cues"] == len(old_srt) == len(public["cues"])
    for record, cue in zip(public["cues"], old_srt, strict=True):
        assert abs(record["start"] - cue.start.total_seconds()) < 0.002 and record["lines"] == cue.content.splitlines()
        assert record["cps"] > 0 and set(record["rules"]) <= set(public["qc"]["rules"])

    class Transcribe:  # a revision must not recognize: any call fails the test
        def __call__(self, *args, **kwargs):
            raise AssertionError("a revision recognized the audio")

    deps = dataclasses.replace(task_deps(local_deps(whisper, translator, store), store, "t1"), transcribe=Transcribe())
    edits = [
        {"id": segments[0].id, "translation": "Buenos días, querida Ana."},
        {"id": segments[1].id, "source": "The bus leaves at ten."},
    ]
    _, result, stages = await _revise(parent_spec, "t0", edits, deps, tmp_path, output_format="all")
    assert stages <= {"validating", "translating", "synthesizing", "packaging"} and "synthesizing" in stages
    vtt = [c.text for c in webvtt.from_buffer(_buffer(text_at(store, result["files"]["vtt"])))]
    subs = [c.content for c in srt.parse(text_at(store, result["files"]["srt"]))]
    for cues in (vtt, subs):
        assert "Buenos días, querida Ana." in " ".join(" ".join(c.split()) for c in cues)
    revised = await read_transcript(store, "t1")
    assert revised is not None and revised.revision == 1 and revised.parent_task_id == "t0"
    assert [s.id for s in revised.segments] == [s.id for s in segments]
    assert revised.segments[1].source == "The bus leaves at ten."
    retranslated = revised.segments[1].translation
    assert retranslated != segments[1].translation and "autobús" in retranslated.lower(), retranslated
    assert revised.segments[2:] == segments[2:]  # the rest as it was
    assert not revised.segments[1].words  # a new source: the recognized words no longer apply
    assert result["source_lang"] == "en" and result["files"]["burned_video"]
    assert set(result["files"]) >= {"ttml", "ebu_tt_d"} and result["qc"]["cues"] == len(subs)

    _, legacy, _ = await _revise(
        parent_spec, "t0", [{"id": segments[0].id, "translation": "Hola."}], deps, tmp_path, 2, subtitle_preset="legacy"
    )
    assert legacy["qc"]["preset"]["name"] == "legacy" and legacy["qc"]["preset"]["max_cps"] == 20.0
    assert legacy["qc"]["rules"]["min_gap"] == 0  # frame rules are not checked under legacy


async def test_a_dub_revision_speaks_only_the_edited_line_again(
    scene_path, whisper, translator, store, synthesizer, denoiser, tmp_path
):
    calls: list[str] = []
    base = dubbing_deps(synthesizer, denoiser)

    async def counted(request, semitones):
        calls.append(request.text)
        return await base.synthesize(request, semitones)

    dub = dataclasses.replace(base, synthesize=counted, line_audio=LineAudio(store, "t0"))
    spec = spec_for(scene_path, target_lang="es", source_lang="en", enable_dubbing=True, dubbing_bg_music=0.0)
    first = await translate_video(
        spec, task_deps(local_deps(whisper, translator, store), store, "t0", dub), Progress(Recorder()), tmp_path
    )
    spoken_first = len(calls)
    transcript = await read_transcript(store, "t0")
    assert transcript is not None and all(s.dubbing is not None for s in transcript.segments)
    target = transcript.segments[1]
    calls.clear()
    deps = task_deps(local_deps(whisper, translator, store), store, "t1", dub)
    _, result, _ = await _revise(spec, "t0", [{"id": target.id, "translation": "El autobús sale a las diez."}], deps, tmp_path)
    assert calls == ["El autobús sale a las diez."], calls  # every other line came from the kept audio
    assert spoken_first >= len(transcript.segments)

    before = decode(Path(store.open_path(urlsplit(first["video_url"]).path.removeprefix("/v1/files/"))))
    after = decode(Path(store.open_path(urlsplit(result["video_url"]).path.removeprefix("/v1/files/"))))
    n = min(len(before), len(after))
    near = np.zeros(n, bool)
    report = json.loads(text_at(store, result["dubbing_report_url"]))
    for line in report["lines"]:
        if line["text"] == "El autobús sale a las diez.":
            near[max(0, int((line["cue_start"] - 1.0) * RATE)) : int((line["cue_end"] + 1.0) * RATE)] = True
    assert near.any()
    changed = np.abs(after[:n] - before[:n])
    far, close = float(np.sqrt(np.mean(changed[~near] ** 2))), float(np.sqrt(np.mean(changed[near] ** 2)))
    level = float(np.sqrt(np.mean(before[:n][~near] ** 2)))
    assert far < 0.1 * level and close > 3 * far, (far, close, level)  # the audio changed around the edit only


async def test_a_parent_without_a_kept_transcript_fails_the_revision_clearly(scene_path, whisper, translator, store, tmp_path):
    spec = spec_for(scene_path, target_lang="es", source_lang="en")
    deps = task_deps(local_deps(whisper, translator, store), store, "t9")
    with pytest.raises(InvalidInput, match="no longer kept"):
        await _revise(spec, "gone", [{"id": "s1", "translation": "x"}], deps, tmp_path)


def _buffer(text: str):
    import io

    return io.StringIO(text)
