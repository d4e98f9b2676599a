"""Timed-text QC (pipelines/subtitles/qc.py) on constructed timelines, and the file-reading CLI (loadtests/qc_subtitles.py)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from loadtests import qc_subtitles
from pipelines.subtitles.presets import Preset, preset_for
from pipelines.subtitles.qc import RULE_TEXT, RULES, check_cues, exact_rate, frame, half_second
from pipelines.subtitles.timecode import srt_time, vtt_time
from pipelines.subtitles.types import Cue

RATES = (23.976, 25.0, 29.97)
ES = preset_for("es")
OK = "Hola, ¿qué tal?"


def at(n: int, fps: float) -> float:
    """The time of frame ``n`` as a file holds it (milliseconds)."""
    return round(n / exact_rate(fps), 3)


def cue(start: float, end: float, *lines: str, index: int = 1, original: tuple[str, ...] = ()) -> Cue:
    return Cue(index, start, end, lines or (OK,), original)


def frames(a: int, b: int, fps: float, *lines: str, index: int = 1) -> Cue:
    return cue(at(a, fps), at(b, fps), *lines, index=index)


def rules(cues: list[Cue], preset: Preset = ES, fps: float = 24.0, cuts: tuple[float, ...] = ()) -> list[tuple[str, ...]]:
    return [check.rules for check in check_cues(cues, preset, fps, cuts).cues]


# frames and half a second


@pytest.mark.parametrize(("fps", "half"), [(23.976, 12), (24, 12), (25, 12), (29.97, 15), (30, 15), (59.94, 30)])
def test_half_a_second(fps: float, half: int) -> None:
    assert half_second(exact_rate(fps)) == half


@pytest.mark.parametrize(("fps", "exact"), [(23.976, 24000 / 1001), (29.97, 30000 / 1001), (59.94, 60000 / 1001), (25, 25.0)])
def test_ntsc_rates_are_exact(fps: float, exact: float) -> None:
    assert exact_rate(fps) == exact
    hours = 3 * 3600 * exact  # the last frame of a 3-hour film survives millisecond rounding
    assert frame(at(int(hours), fps), exact) == int(hours)


# one rule at a time, every frame rate


@pytest.mark.parametrize("fps", RATES)
def test_a_clean_timeline_passes(fps: float) -> None:
    timeline = [frames(0, 48, fps), frames(50, 100, fps, "Bien.", index=2), frames(100 + 40, 200, fps, index=3)]
    assert rules(timeline, fps=fps) == [(), (), ()]


@pytest.mark.parametrize("fps", RATES)
def test_line_length(fps: float) -> None:
    fits, long = "a" * 20 + " " + "b" * 21, "a" * 20 + " " + "b" * 22
    assert rules([frames(0, 100, fps, fits)], fps=fps) == [()]
    assert rules([frames(0, 100, fps, long)], fps=fps) == [("line_length",)]


@pytest.mark.parametrize("fps", RATES)
def test_lines(fps: float) -> None:
    three = ("a" * 20, "b" * 20, "c" * 20)  # joined they do not fit one line either
    assert rules([frames(0, 5 * 25, fps, *three)], fps=fps) == [("lines",)]


@pytest.mark.parametrize("fps", RATES)
def test_reading_speed(fps: float) -> None:
    assert rules([cue(at(10, fps), at(10, fps) + 2.0, "x" * 34)], fps=fps) == [()]  # 17.0 cps
    assert rules([cue(at(10, fps), at(10, fps) + 2.0, "x" * 35)], fps=fps) == [("reading_speed",)]  # 17.5 cps


@pytest.mark.parametrize("fps", RATES)
def test_min_duration(fps: float) -> None:
    shortest = math.ceil(5 / 6 * exact_rate(fps))  # 20 frames at 23.976, 21 at 25, 25 at 29.97
    assert rules([frames(10, 10 + shortest, fps, "Sí.")], fps=fps) == [()]
    assert rules([frames(10, 10 + shortest - 1, fps, "Sí.")], fps=fps) == [("min_duration",)]


def test_five_sixths_of_a_second_rounded_to_ms_passes() -> None:
    assert rules([cue(1.0, 1.833, "Sí.")]) == [()]
    assert rules([cue(1.0, 1.830, "Sí.")]) == [("min_duration",)]


@pytest.mark.parametrize("fps", RATES)
def test_max_duration(fps: float) -> None:
    longest = math.floor(7 * exact_rate(fps))
    assert rules([frames(10, 10 + longest, fps)], fps=fps) == [()]
    assert rules([frames(10, 10 + longest + 2, fps)], fps=fps) == [("max_duration",)]
    assert rules([cue(1.0, 8.0)]) == [()]


@pytest.mark.parametrize("fps", RATES)
@pytest.mark.parametrize(("gap", "expected"), [(-3, "overlap"), (0, "min_gap"), (1, "min_gap"), (2, None), (3, "gap_not_closed")])
def test_gaps(fps: float, gap: int, expected: str | None) -> None:
    timeline = [frames(0, 48, fps), frames(48 + gap, 100, fps, index=2)]
    assert rules(timeline, fps=fps) == [(expected,) if expected else (), ()]


@pytest.mark.parametrize("fps", RATES)
def test_gaps_up_to_half_a_second_are_closed(fps: float) -> None:
    half = half_second(exact_rate(fps))
    open_gap = [frames(0, 48, fps), frames(48 + half, 100, fps, index=2)]
    wide_gap = [frames(0, 48, fps), frames(48 + half + 1, 100, fps, index=2)]
    assert rules(open_gap, fps=fps) == [("gap_not_closed",), ()]
    assert rules(wide_gap, fps=fps) == [(), ()]


def test_an_overlap_of_a_millisecond_is_an_overlap() -> None:
    assert rules([cue(0.0, 2.0), cue(1.999, 4.0)]) == [("overlap",), ()]


def test_cues_are_checked_in_time_order() -> None:
    report = check_cues([cue(3.0, 5.0, index=2), cue(0.0, 2.8, index=1)], ES)  # a 5-frame gap at 24 fps
    assert [(c.index, c.rules) for c in report.cues] == [(1, ("gap_not_closed",)), (2, ())]


def test_single_line_fits() -> None:
    assert rules([cue(0.0, 2.0, "Hola,", "¿qué tal?")]) == [("single_line_fits",)]
    assert rules([cue(0.0, 2.0, "-Hola.", "-Adiós.")]) == [()]  # two speakers keep a line each
    assert rules([cue(0.0, 4.0, "a" * 20, "b" * 21)]) == [("single_line_fits",)]  # 42 with the space
    assert rules([cue(0.0, 4.0, "a" * 21, "b" * 21)]) == [()]


# shot changes


@pytest.mark.parametrize("fps", RATES)
def test_in_time_at_the_cut_passes_and_near_it_fails(fps: float) -> None:
    half, cut = half_second(exact_rate(fps)), (at(200, fps),)
    for start, expected in [(200, ()), (205, ("shot_change",)), (199, ("shot_change",)), (200 + half, ()), (200 - half, ())]:
        assert rules([frames(start, start + 48, fps)], fps=fps, cuts=cut) == [expected], start


@pytest.mark.parametrize("fps", RATES)
def test_out_time_two_frames_before_the_cut_passes(fps: float) -> None:
    half, cut = half_second(exact_rate(fps)), (at(200, fps),)
    for end, expected in [(198, ()), (199, ("shot_change",)), (200, ("shot_change",)), (201, ("shot_change",))]:
        assert rules([frames(150, end, fps)], fps=fps, cuts=cut) == [expected], end
    for end, expected in [(200 + half, ()), (200 - half, ()), (200 + half - 1, ("shot_change",)), (197, ("shot_change",))]:
        assert rules([frames(150, end, fps)], fps=fps, cuts=cut) == [expected], end


def test_shot_changes_only_when_given() -> None:
    assert rules([frames(5, 60, 24.0)]) == [()]
    assert rules([frames(5, 60, 24.0)], cuts=(0.0,)) == [("shot_change",)]


# languages, bilingual cues, legacy


def test_japanese_counts_half_width_characters_as_half() -> None:
    ja = preset_for("ja")
    assert rules([cue(0.0, 5.0, "あ" * 13)], ja) == [()]
    assert rules([cue(0.0, 5.0, "あ" * 14)], ja) == [("line_length",)]
    assert rules([cue(0.0, 5.0, "a" * 26)], ja) == [()]
    assert rules([cue(0.0, 5.0, "ｱ" * 26)], ja) == [()]  # half-width katakana
    assert rules([cue(0.0, 5.0, "a" * 27)], ja) == [("line_length",)]
    assert check_cues([cue(0.0, 5.0, "あ" * 6 + "ab")], ja).cues[0].chars == 7.0


def test_chinese_lines_hold_16_characters() -> None:
    zh = preset_for("zh")
    assert rules([cue(0.0, 3.0, "我" * 16)], zh) == [()]
    assert rules([cue(0.0, 3.0, "我" * 17)], zh) == [("line_length",)]
    assert rules([cue(0.0, 1.0, "我" * 10)], zh) == [("reading_speed",)]  # 9 characters per second


def test_bilingual_cues_count_each_block_and_check_the_translation() -> None:
    two_and_two = cue(0.0, 4.0, "a" * 30, "b" * 30, original=("c" * 60, "d" * 60))
    three = cue(0.0, 6.0, "a" * 30, "b" * 30, "c" * 30, original=("d",))
    assert rules([two_and_two]) == [()]
    assert rules([three]) == [("lines",)]
    assert check_cues([two_and_two], ES).cues[0].chars == 60


def test_cues_without_text_are_skipped() -> None:
    report = check_cues([Cue(1, 0.0, 0.1, ()), cue(5.0, 7.0, index=2)], ES)
    assert [c.index for c in report.cues] == [2]
    assert check_cues([], ES).share() == 0.0


def test_legacy_skips_frame_rules() -> None:
    legacy = preset_for("es", "legacy")
    timeline = [frames(0, 48, 24.0), frames(49, 100, 24.0, index=2), frames(105, 150, 24.0, index=3), cue(6.2, 7.2, index=4)]
    cut = (at(50, 24.0),)  # 2 frames after the first out-time, 1 after the second in-time
    assert rules(timeline, legacy, cuts=cut) == [(), (), ("overlap",), ()]
    assert rules(timeline, ES, cuts=cut) == [("min_gap",), ("gap_not_closed", "shot_change"), ("overlap",), ()]
    assert rules([cue(0.0, 0.7, "Sí.")], legacy) == [()]  # legacy's own 0.7 s minimum
    assert rules([cue(0.0, 5.1)], legacy) == [("max_duration",)]


# the report


def test_report_counts_every_rule_and_is_json_ready() -> None:
    timeline = [cue(0.0, 2.0, "x" * 50), cue(2.0, 4.0, index=2), cue(10.0, 11.0, "Hola,", "¿qué tal?", index=3)]
    report = check_cues(timeline, ES, fps=23.976)
    counts = report.counts()
    assert list(counts) == list(RULES) == list(RULE_TEXT)
    assert counts["line_length"] == counts["reading_speed"] == counts["min_gap"] == counts["single_line_fits"] == 1
    assert sum(counts.values()) == 4 and report.failing() == 2
    summary = json.loads(json.dumps(report.summary()))
    assert summary == {
        "preset": ES.public(),
        "fps": 23.976,
        "cues": 3,
        "failing": 2,
        "failing_share": 0.6667,
        "rules": counts,
    }
    first = report.cue_records()[0]
    assert first == {"index": 1, "start": 0.0, "end": 2.0, "lines": ["x" * 50], "cps": 25.0, "rules": first["rules"]}
    assert first["rules"] == ["line_length", "reading_speed", "min_gap"]


def test_a_cue_with_no_duration_has_no_finite_speed() -> None:
    report = check_cues([cue(1.0, 1.0)], ES)
    assert report.cues[0].rules == ("reading_speed", "min_duration")
    assert report.cue_records()[0]["cps"] is None


# the CLI reading files


def timeline(fps: float) -> list[Cue]:
    """One cue for each rule in turn (frame rules at the ends), then a clean cue."""
    return [
        frames(0, 72, fps, "Hola.", index=1),  # min_gap (1 frame to the next)
        frames(73, 173, fps, "a" * 44, index=2),  # line_length (then a wide gap)
        frames(200, 215, fps, "Sí.", index=3),  # min_duration
        frames(300, 350, fps, "Hola,", "¿qué tal?", index=4),  # single_line_fits
        frames(400, 448, fps, "x" * 40, index=5),  # reading_speed
        frames(500, 548, fps, "-Hola.", "-Adiós.", index=6),  # gap_not_closed (4 frames)
        frames(552, 600, fps, "Adiós.", index=7),
    ]


def write_srt(path: Path, cues: list[Cue]) -> None:
    blocks = [f"{c.index}\n{srt_time(c.start)} --> {srt_time(c.end)}\n" + "\n".join(c.lines) for c in cues]
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")


def write_vtt(path: Path, cues: list[Cue]) -> None:
    blocks = [f"{vtt_time(c.start)} --> {vtt_time(c.end)} line:90%\n" + "\n".join(c.lines) for c in cues]
    path.write_text("WEBVTT\n\n" + "\n\n".join(blocks) + "\n", encoding="utf-8")


def write_ttml(path: Path, cues: list[Cue]) -> None:
    spans = ["<br/>".join(f"<span>{line}</span>" for line in c.lines) for c in cues]
    paragraphs = "\n".join(
        f'      <p begin="{vtt_time(c.start)}" end="{vtt_time(c.end)}">{text}</p>' for c, text in zip(cues, spans)
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<tt xmlns="http://www.w3.org/ns/ttml" xmlns:ttp="http://www.w3.org/ns/ttml#parameter"\n'
        '    xmlns:tts="http://www.w3.org/ns/ttml#styling" xml:lang="es" ttp:timeBase="media"\n'
        '    ttp:frameRate="30" ttp:frameRateMultiplier="1000 1001"\n'
        '    ttp:contentProfiles="http://www.w3.org/ns/ttml/profile/imsc1.1/text">\n'
        '  <head><layout><region xml:id="r" tts:origin="10% 80%" tts:extent="80% 20%"/></layout></head>\n'
        f'  <body region="r">\n    <div>\n{paragraphs}\n    </div>\n  </body>\n</tt>\n',
        encoding="utf-8",
    )


WRITERS = {"srt": write_srt, "vtt": write_vtt, "ttml": write_ttml}


@pytest.mark.parametrize("kind", WRITERS)
def test_cli_reads_files_and_agrees_with_check_cues(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fps = 29.97
    cues = timeline(fps)
    path = tmp_path / f"track.{kind}"
    WRITERS[kind](path, cues)
    read = qc_subtitles.read_cues(path)
    assert [(c.start, c.end, c.lines) for c in read] == [(c.start, c.end, c.lines) for c in cues]
    assert qc_subtitles.main([str(path), "--lang", "es", "--fps", "29.97", "--json"]) == 0
    [result] = json.loads(capsys.readouterr().out)
    expected = check_cues(cues, ES, fps=fps)
    assert {k: v for k, v in result.items() if k not in ("file", "worst")} == expected.summary()
    assert result["failing"] == 6
    assert all(n == 1 for rule, n in result["rules"].items() if rule not in ("lines", "max_duration", "overlap", "shot_change"))
    assert len(result["worst"]) == 5


def test_ttml_frame_rate_and_shot_changes_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, cuts = tmp_path / "track.ttml", tmp_path / "cuts.txt"
    write_ttml(path, timeline(29.97))
    cuts.write_text("# cuts\n00:00:18:12\n\n", encoding="utf-8")  # frame 552 at 29.97: the last in-time
    assert qc_subtitles.declared_fps(path) == pytest.approx(30000 / 1001)
    assert qc_subtitles.read_shot_changes(cuts, 30000 / 1001) == [pytest.approx(552 * 1001 / 30000)]
    qc_subtitles.main([str(path), "--lang", "es", "--shot-changes", str(cuts), "--json"])
    [result] = json.loads(capsys.readouterr().out)
    assert result["fps"] == 29.97
    assert result["rules"]["shot_change"] == 1  # cue 6 ends 4 frames before the cut, cue 7 starts on it


def test_cli_prints_a_table(tmp_path: Path) -> None:
    path = tmp_path / "track.srt"
    write_srt(path, timeline(24.0))
    script = Path(qc_subtitles.__file__)
    done = subprocess.run(
        [sys.executable, str(script), str(path), "--lang", "es", "--preset", "legacy", "--max-chars", "40"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "7 cues, 3 failing (42.9%); preset legacy/es, 24 fps" in done.stdout  # no gap rules; 40 characters
    assert "line_length        1" in done.stdout and "worst:" in done.stdout
