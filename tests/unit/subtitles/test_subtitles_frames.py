"""Frame-accurate timing (pipelines/subtitles/frames.py) on constructed timelines, checked by the QC rules."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.subtitle_layout import options_for
from pipelines.subtitles.frames import GAP_FRAMES, Grid, retime
from pipelines.subtitles.presets import preset_for
from pipelines.subtitles.qc import check_cues
from pipelines.subtitles.types import Cue

FRAME_RATES = (24000 / 1001, 25.0, 30000 / 1001)


def cue(start: float, end: float, text: str = "A short line.") -> Cue:
    return Cue(0, start, end, (text,))


def frames(cues: list[Cue], fps: float) -> list[tuple[int, int]]:
    grid = Grid(fps)
    return [(grid.frame(c.start), grid.frame(c.end)) for c in cues]


def options(fps: float, shots: tuple[float, ...] = (), language: str = "en"):
    return options_for(preset_for(language), speaker_labels=False, fps=fps, shot_changes=shots)


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_times_land_on_frames_and_in_times_on_speech(fps: float) -> None:
    timed = retime([cue(1.013, 2.4), cue(4.0, 5.5), cue(8.2, 9.0)], options(fps))
    grid = Grid(fps)
    for original, shown in zip([1.013, 4.0, 8.2], timed):
        assert shown.start * fps == pytest.approx(round(shown.start * fps), abs=1e-6)
        assert abs(grid.frame(shown.start) - grid.frame(original)) <= 1


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_gaps_of_half_a_second_or_less_close_to_two_frames(fps: float) -> None:
    grid = Grid(fps)
    first_end = 2.0
    second_start = first_end + (grid.half - 1) / fps  # a gap just under half a second
    timed = frames(retime([cue(0.5, first_end), cue(second_start, second_start + 2.0)], options(fps)), fps)
    assert timed[1][0] - timed[0][1] == GAP_FRAMES


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_a_long_gap_stays_open_and_the_out_time_lingers_at_most_half_a_second(fps: float) -> None:
    grid = Grid(fps)
    text = "A line that takes a while to read at twenty per second, surely."
    timed = frames(retime([cue(0.5, 2.0, text), cue(6.0, 8.0)], options(fps)), fps)
    end_of_speech = grid.frame(2.0)
    assert end_of_speech < timed[0][1] <= end_of_speech + grid.half
    assert timed[1][0] - timed[0][1] > grid.half


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_touching_speech_keeps_a_two_frame_gap(fps: float) -> None:
    timed = frames(retime([cue(0.5, 2.0), cue(2.0, 3.5), cue(3.5, 5.0)], options(fps)), fps)
    for (_, end), (start, _) in itertools.pairwise(timed):
        assert start - end == GAP_FRAMES


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_a_short_utterance_is_shown_for_the_minimum_duration(fps: float) -> None:
    timed = retime([cue(1.0, 1.25, "Yes."), cue(5.0, 6.0)], options(fps))
    assert timed[0].duration >= 5 / 6 - 1e-6
    assert not check_cues(timed, preset_for("en"), fps).counts()["min_duration"]


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_no_cue_exceeds_the_maximum_duration(fps: float) -> None:
    timed = retime([cue(0.0, 6.9, "word " * 20), cue(7.5, 8.0)], options(fps))
    assert all(c.duration <= 7.0 + 1e-6 for c in timed)


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_in_time_just_before_a_cut_starts_at_the_cut(fps: float) -> None:
    cut = 10.0
    speech = cut - 5 / fps
    timed = frames(retime([cue(2.0, 4.0), cue(speech, speech + 2.0)], options(fps, (cut,))), fps)
    assert timed[1][0] == Grid(fps).frame(cut)


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_in_time_8_to_11_frames_before_a_cut_moves_half_a_second_before_it(fps: float) -> None:
    grid = Grid(fps)
    cut = 10.0
    speech = cut - 9 / fps
    timed = frames(retime([cue(2.0, 4.0), cue(speech, speech + 2.0)], options(fps, (cut,))), fps)
    assert timed[1][0] == grid.frame(cut) - grid.half


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_in_time_shortly_after_a_cut_snaps_back_to_it(fps: float) -> None:
    cut = 10.0
    speech = cut + 6 / fps
    timed = frames(retime([cue(2.0, 4.0), cue(speech, speech + 2.0)], options(fps, (cut,))), fps)
    assert timed[1][0] == Grid(fps).frame(cut)


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_out_time_near_a_cut_ends_two_frames_before_it(fps: float) -> None:
    grid = Grid(fps)
    cut = 10.0
    timed = frames(retime([cue(7.0, cut - 6 / fps), cue(14.0, 15.0)], options(fps, (cut,))), fps)
    assert timed[0][1] == grid.frame(cut) - GAP_FRAMES


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_out_time_just_after_a_cut_is_pulled_back_when_speech_ended(fps: float) -> None:
    grid = Grid(fps)
    cut = 10.0
    # speech ends 3 frames before the cut; lingering would carry the out-time past it
    text = "A line long enough to want its full half second of lingering after it."
    timed = frames(retime([cue(7.5, cut - 3 / fps, text), cue(14.0, 15.0)], options(fps, (cut,))), fps)
    assert timed[0][1] == grid.frame(cut) - GAP_FRAMES


@pytest.mark.parametrize("fps", FRAME_RATES)
def test_constructed_timelines_pass_the_timing_rules(fps: float) -> None:
    cut_times = (3.3, 9.1, 15.0)
    speech = [(0.4, 1.9), (2.05, 3.25), (3.4, 5.0), (5.02, 6.1), (8.0, 9.05), (9.3, 12.0), (12.1, 14.9), (15.4, 16.0)]
    cues = [cue(s, e, "Short enough line.") for s, e in speech]
    timed = retime(cues, options(fps, cut_times))
    report = check_cues(timed, preset_for("en"), fps, cut_times)
    counts = report.counts()
    for rule in ("overlap", "min_gap", "gap_not_closed", "max_duration", "min_duration", "shot_change"):
        assert counts[rule] == 0, (rule, report.cue_records())


@settings(max_examples=60, deadline=None)
@given(
    fps=st.sampled_from(FRAME_RATES),
    spans=st.lists(st.tuples(st.floats(0.0, 1.5), st.floats(0.05, 6.0)), min_size=1, max_size=25),
    cuts=st.lists(st.floats(0.1, 120.0), max_size=8),
)
def test_random_timelines_never_overlap_and_keep_two_frames(fps: float, spans, cuts) -> None:
    t, cues = 0.0, []
    for gap, length in spans:
        cues.append(cue(t + gap, t + gap + length, "Some words here."))
        t += gap + length
    timed = retime(cues, options(fps, tuple(cuts)))
    grid = Grid(fps)
    for previous, following in itertools.pairwise(timed):
        assert grid.frame(following.start) - grid.frame(previous.end) >= GAP_FRAMES
    for shown in timed:
        assert shown.end > shown.start
        assert shown.duration <= 7.0 + 1e-6
