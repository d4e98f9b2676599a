"""Per-language presets (pipelines/subtitles/presets.py) and the layout they give a task (subtitle_layout.py)."""

from __future__ import annotations

import pytest

from core.specs.video import UploadSource, VideoJobSpec
from pipelines.subtitle_layout import layout_of, options_for
from pipelines.subtitles import segment_words, translate_sentences
from pipelines.subtitles.presets import preset_for
from pipelines.subtitles.qc import check_cues
from pipelines.subtitles.text import char_count
from pipelines.subtitles.translation import group_sentences
from pipelines.subtitles.types import Word


def spec(**fields: object) -> VideoJobSpec:
    return VideoJobSpec.model_validate({"source": UploadSource(key="talk.mp4"), **fields})


@pytest.mark.parametrize(
    ("language", "chars", "cps"),
    [("en", 42, 20.0), ("es", 42, 17.0), ("zh", 16, 9.0), ("zh-TW", 16, 9.0), ("ko", 16, 12.0), ("ja", 13, 4.0),
     ("th", 35, 17.0), ("hi", 42, 22.0), ("ar", 42, 20.0), ("pt-BR", 42, 17.0)],
)  # fmt: skip
def test_standard_preset_table(language: str, chars: int, cps: float) -> None:
    preset = preset_for(language)
    assert (preset.max_chars, preset.max_cps, preset.max_lines) == (chars, cps, 2)
    assert preset.min_duration == pytest.approx(5 / 6)
    assert preset.max_duration == 7.0
    assert preset.frame_rules


def test_explicit_values_win_and_the_duration_floor_follows() -> None:
    preset = preset_for("zh", max_chars=30, max_duration=2.0)
    assert preset.max_chars == 30
    assert preset.max_duration == 2.0
    assert preset.min_duration <= 2.0


def test_broadcast_reads_slower_and_legacy_is_the_old_single_preset() -> None:
    for language in ("en", "es", "zh", "ja"):
        assert preset_for(language, "broadcast").max_cps < preset_for(language).max_cps
    assert preset_for("es", "broadcast").max_chars == 37
    legacy = preset_for("zh", "legacy")
    assert (legacy.max_chars, legacy.max_cps, legacy.max_duration, legacy.frame_rules) == (42, 20.0, 5.0, False)
    with pytest.raises(ValueError, match="subtitle_preset"):
        preset_for("en", "cinema")


def test_japanese_counts_half_width_characters_as_half() -> None:
    assert char_count("日本語", True) == 3
    assert char_count("ABCD", True) == 2
    assert char_count("ＡＢ", True) == 2  # full-width forms count whole
    options = options_for(preset_for("ja"), speaker_labels=False, fps=24.0)
    assert options.max_chars == 26 and options.measure("日本語abc") == 9


def test_layout_applies_the_target_preset_unless_the_request_gave_limits() -> None:
    request = spec(target_lang="zh")
    layout = layout_of(request, "en", "zh", speaker_labels=False, fps=25.0)
    assert (layout.target.max_chars, layout.target.max_cps, layout.target.fps) == (16, 9.0, 25.0)
    assert layout.source.max_chars == 42
    given = spec(target_lang="zh", max_subtitle_length=20, explicit_layout=["max_subtitle_length"])
    assert layout_of(given, "en", "zh", speaker_labels=False).target.max_chars == 20
    legacy = spec(target_lang="zh", subtitle_preset="legacy")
    assert layout_of(legacy, "en", "zh", speaker_labels=False).target.fps is None


def _words(text: str, start: float = 0.0, per_word: float = 0.35) -> list[Word]:
    out, t = [], start
    for k, token in enumerate(text.split()):
        out.append(Word(t, t + per_word * 0.9, (" " if k else "") + token))
        t += per_word
    return out


@pytest.mark.parametrize("language", ["zh", "ja", "ko"])
def test_cjk_translations_are_laid_out_within_their_line_limits(language: str) -> None:
    text = {
        "zh": "我们明天早上八点在火车站见面，然后一起去海边的那家小酒店住两个晚上。",
        "ja": "明日の朝八時に駅で会って、それから一緒に海辺の小さなホテルに二泊しましょう。",
        "ko": "우리는 내일 아침 여덟 시에 기차역에서 만나서 바닷가의 작은 호텔에서 이틀 밤을 묵을 거예요.",
    }[language]
    source = preset_for("en")
    target = preset_for(language)
    words = _words("We will meet at the station at eight tomorrow morning and then stay two nights at the hotel.")
    cues = segment_words(words, options_for(source, speaker_labels=False, fps=24.0))
    groups = group_sentences(cues)
    options = options_for(target, speaker_labels=False, fps=24.0)
    laid = translate_sentences(groups, [text] + [""] * (len(groups) - 1), options)
    report = check_cues(laid, target, 24.0)
    assert laid and report.counts()["line_length"] == 0 and report.counts()["lines"] == 0


def test_timing_trusts_only_plausible_frame_rates() -> None:
    from engines.media.probe import MediaInfo, VideoStream
    from pipelines.video_translation import frame_rate

    def info(fps: float | None) -> MediaInfo:
        video = VideoStream("h264", 640, 360, fps) if fps is not None else None
        return MediaInfo("mp4", "mov,mp4", 10.0, 1000, video, None, 0)

    assert frame_rate(info(30000 / 1001)) == pytest.approx(29.97, abs=0.01)
    assert frame_rate(info(90000.0)) is None  # a time base taken for a rate
    assert frame_rate(info(0.0)) is None and frame_rate(info(None)) is None
