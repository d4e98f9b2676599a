"""Recognition and translation overlap on a chunked recording, and the subtitles are those of the plain path."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

import pipelines.transcript_translation as transcript_translation
import pipelines.video_translation as video_translation
from pipelines.progress import Progress
from tests.integration.pipeline.conftest import Recorder, local_deps, spec_for
from tests.support.media import make_video

pytestmark = pytest.mark.models

SPEECH = (
    "The train left the station early in the morning. "
    "A boy sat by the window and watched the fields go by. "
    "His mother read a newspaper and drank hot tea. "
    "At noon they arrived in a small town near the sea. "
    "They walked to the harbour and bought fresh bread. "
    "In the evening the boy wrote a letter to his grandfather."
)


class WatchedTranslator:
    """The real translator; remembers the task's stage at every request."""

    def __init__(self, inner: Any, recorder: Recorder) -> None:
        self.inner, self.recorder, self.stages = inner, recorder, []

    def translate(self, request, glossary):
        self.stages.append(self.recorder.updates[-1][0])
        return self.inner.translate(request, glossary)

    def pairs(self):
        return self.inner.pairs()


@pytest.fixture(scope="module")
def long_talk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("media") / "long.mp4", container="mp4", speech_text=SPEECH)


async def subtitles(media: Path, whisper, translator, store, tmp_path: Path) -> tuple[str, list[str], list[str]]:
    recorder = Recorder()
    watched = WatchedTranslator(translator, recorder)
    work = tmp_path / f"work{len(list(tmp_path.iterdir()))}"
    work.mkdir()
    deps = local_deps(whisper, watched, store, chunk_s=5.0)
    result = await video_translation.translate_video(
        spec_for(media, target_lang="es"), deps, Progress(recorder, min_interval_s=0), work
    )
    key = urlsplit(result["subtitle_url"]).path.removeprefix("/v1/files/")
    return store.open_path(key).read_text(encoding="utf-8"), watched.stages, [u[0] for u in recorder.updates]


async def test_translation_starts_during_recognition_and_changes_nothing(
    long_talk, whisper, translator, store, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(transcript_translation, "TRANSLATE_BATCH", 1)  # one sentence per request: many batches
    early_srt, early_stages, progress_stages = await subtitles(long_talk, whisper, translator, store, tmp_path)
    assert "recognizing" in early_stages, early_stages  # some sentences were translated before recognition ended
    assert progress_stages.index("translating") > progress_stages.index("recognizing")

    monkeypatch.setattr(video_translation, "start_early", lambda *args: None)
    plain_srt, plain_stages, _ = await subtitles(long_talk, whisper, translator, store, tmp_path)
    assert set(plain_stages) == {"translating"}
    assert early_srt == plain_srt  # identical requests, identical subtitles
    assert len(early_stages) <= len(plain_stages) + 2  # at most a seam's worth of batches asked twice
