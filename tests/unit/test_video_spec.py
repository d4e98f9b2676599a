"""The video job spec: one model from the form to Redis to the pipeline, every default defined once."""

from __future__ import annotations

import pydantic
import pytest

from core.specs.video import (
    DEFAULT_FONT,
    DEFAULT_MAX_LINE_CHARS,
    MAX_VIDEO_SECONDS,
    UploadSource,
    UrlSource,
    VideoJobSpec,
    billable_minutes,
)
from pipelines.subtitles import SegmentationOptions, SubtitleStyle
from pipelines.video_outputs import style_of
from serve_app.schemas.video import VideoTranslateParams


def test_a_stored_spec_reads_back_identically() -> None:
    spec = VideoJobSpec(target_lang="es", source=UrlSource(url="https://cdn.example/a.mp4"), output_format="all", bilingual=True)
    again = VideoJobSpec.model_validate(spec.stored())
    assert again == spec and isinstance(again.source, UrlSource)
    upload = VideoJobSpec(target_lang="es", source=UploadSource(key="u1/source.mp4", filename="a.mp4"), media_seconds=61.0)
    assert VideoJobSpec.model_validate(upload.stored()).source == upload.source


def test_form_defaults_reach_the_pipeline_unchanged() -> None:
    form = VideoTranslateParams.model_validate({"target_lang": "es", "video_url": "https://cdn.example/a.mp4"})
    spec = VideoJobSpec(**form.model_dump(exclude={"video_url"}), source=UrlSource(url=form.video_url or ""))
    assert style_of(spec) == SubtitleStyle()  # the pipeline's defaults are the spec's
    assert spec.subtitle_font == DEFAULT_FONT and spec.max_subtitle_length == DEFAULT_MAX_LINE_CHARS
    assert SegmentationOptions().max_chars == spec.max_subtitle_length
    assert SegmentationOptions().max_duration == spec.subtitle_max_duration


def test_fields_a_newer_worker_does_not_know_are_ignored() -> None:
    stored = {**VideoJobSpec(target_lang="es", source=UrlSource(url="https://x.example/a")).stored(), "video_url": "x"}
    assert VideoJobSpec.model_validate(stored).target_lang == "es"


@pytest.mark.parametrize("font", ["Arial\nStyle: x", "A\rB", "Tab\tFont", "Nul\x00", "Comma, Sans", "{\\b1}Bold"])
def test_fonts_with_control_or_markup_characters_are_refused(font: str) -> None:
    with pytest.raises(pydantic.ValidationError):
        VideoTranslateParams.model_validate({"target_lang": "es", "subtitle_font": font})


def test_limits() -> None:
    with pytest.raises(pydantic.ValidationError):
        VideoTranslateParams.model_validate({"target_lang": "es", "start_time": MAX_VIDEO_SECONDS + 1})
    with pytest.raises(pydantic.ValidationError):
        VideoTranslateParams.model_validate({"target_lang": "es", "start_time": 10, "end_time": 5})
    assert [billable_minutes(s) for s in (None, 0, 1, 60, 60.5, 3600)] == [0, 0, 1, 1, 2, 60]
