"""plan(): its guarantees over random cue layouts, and the order in which it tries its methods."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.dubbing.fitting import (
    MAX_LEAD_S,
    MAX_TEMPO,
    MIN_GAP_S,
    REASK_RATIO,
    Fit,
    Slot,
    plan,
    room,
    too_long,
)

TOL = 1e-7
RANDOM = settings(database=None, deadline=None, max_examples=500, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def layouts(draw: st.DrawFn) -> tuple[list[Slot], list[float], float]:
    """Cues as speech recognition gives them (touching, overlapping a little, or far apart) and line lengths."""
    count = draw(st.integers(1, 12))
    t = draw(st.floats(0.0, 2.0))
    slots: list[Slot] = []
    for _ in range(count):
        length = draw(st.floats(0.0, 5.0))
        slots.append(Slot(t, t + length))
        # next start: overlapping this cue a little, touching it, or after a pause
        t = max(t, t + length + draw(st.one_of(st.floats(-0.4, 0.0), st.just(0.0), st.floats(0.0, 3.0))))
    natural = [draw(st.floats(0.0, 9.0)) for _ in slots]
    media_end = max(slots[-1].start, slots[-1].end + draw(st.floats(-0.5, 2.0)))
    return slots, natural, media_end


def check_guarantees(
    slots: list[Slot], natural: list[float], media_end: float, fits: list[Fit], media_start: float = 0.0
) -> None:
    assert len(fits) == len(slots)
    for slot, n, fit in zip(slots, natural, fits):
        assert slot.start - MAX_LEAD_S - TOL <= fit.start <= slot.start + TOL
        assert 1.0 <= fit.tempo <= MAX_TEMPO
        assert fit.natural_s == n
        assert fit.end - fit.start == pytest.approx(n / fit.tempo - fit.truncated_s, abs=TOL)
        assert fit.start >= min(media_start, slot.start) - TOL and fit.end <= media_end + TOL
        assert fit.end >= fit.start - TOL
        assert min(fit.borrowed_before_s, fit.borrowed_after_s, fit.truncated_s) >= 0
        assert fit.borrowed_before_s <= MAX_LEAD_S + TOL
    placed = [f for f in fits if f.end - f.start > TOL]
    for a, b in itertools.pairwise(placed):
        assert b.start - a.end >= MIN_GAP_S - TOL, "placed lines overlap or touch"


def check_method_order(slots: list[Slot], media_end: float, fits: list[Fit], media_start: float = 0.0) -> None:
    """Each method is used only when the ones before it cannot fit the line."""
    for i, fit in enumerate(fits):
        before, after = room(slots, i, media_end, media_start=media_start)
        if fit.method == "natural":
            assert fit.tempo == 1.0 and fit.natural_s <= fit.slot_s + TOL
            assert fit.borrowed_before_s == fit.borrowed_after_s == fit.truncated_s == 0
        elif fit.method == "tempo":
            assert fit.natural_s > fit.slot_s and fit.natural_s / fit.slot_s <= MAX_TEMPO + TOL
            assert fit.end - fit.start == pytest.approx(fit.slot_s, abs=TOL)
            assert fit.borrowed_before_s == fit.borrowed_after_s == fit.truncated_s == 0
        else:
            # tempo is exhausted before any silence is borrowed, and silence after before silence before
            assert fit.tempo == MAX_TEMPO and fit.natural_s / MAX_TEMPO > fit.slot_s
            assert fit.borrowed_after_s == pytest.approx(min(after, fit.natural_s / MAX_TEMPO - fit.slot_s), abs=TOL)
            if fit.borrowed_before_s > 0:
                assert fit.borrowed_after_s == pytest.approx(after, abs=TOL)
            if fit.method == "truncated":
                assert fit.truncated_s > 0
                assert fit.end == pytest.approx(fit.start + fit.slot_s + fit.borrowed_before_s + fit.borrowed_after_s, abs=TOL)
            else:
                assert fit.method == "tempo+borrow" and fit.truncated_s == 0
        # with the neighbours inside their cues (room), a line that too_long accepts is never truncated
        if fit.method == "truncated" and i == 0:
            assert too_long(fit.natural_s, slots, i, media_end, media_start=media_start) is not None
        assert before >= 0 and after >= 0


@RANDOM
@given(layouts(), st.floats(0.0, 1.0))
def test_guarantees_hold_for_random_layouts(layout: tuple[list[Slot], list[float], float], start_at: float) -> None:
    slots, natural, media_end = layout
    media_start = start_at * slots[0].start  # a dubbed range starting before the first cue
    fits = plan(slots, natural, media_end, media_start=media_start)
    check_guarantees(slots, natural, media_end, fits, media_start)
    check_method_order(slots, media_end, fits, media_start)


@RANDOM
@given(layouts())
def test_too_long_flags_lines_beyond_the_ratio_or_the_room(layout: tuple[list[Slot], list[float], float]) -> None:
    slots, natural, media_end = layout
    for i, n in enumerate(natural):
        before, after = room(slots, i, media_end)
        fit = plan(slots, [n if k == i else 0.0 for k in range(len(slots))], media_end)[i]
        fraction = too_long(n, slots, i, media_end)
        if fraction is None:
            assert n <= REASK_RATIO * fit.slot_s + TOL or n == 0
            assert n / MAX_TEMPO <= fit.slot_s + before + after + TOL
        else:
            assert 0 < fraction < 1
            assert n > REASK_RATIO * fit.slot_s - TOL or n / MAX_TEMPO > fit.slot_s + before + after - TOL


def test_methods_in_order_as_the_line_grows() -> None:
    # cue 2-4 s, previous cue ends at 1 s, next starts at 5 s: 0.15 s before and 0.95 s after may be borrowed
    slots = [Slot(0.0, 1.0), Slot(2.0, 4.0), Slot(5.0, 6.0)]
    assert room(slots, 1, 10.0) == pytest.approx((MAX_LEAD_S, 1.0 - MIN_GAP_S))

    def middle(n: float) -> Fit:
        return plan(slots, [0.5, n, 0.5], 10.0)[1]

    natural = middle(1.5)
    assert (natural.method, natural.start, natural.end, natural.tempo) == ("natural", 2.0, 3.5, 1.0)
    tempo = middle(2.5)
    assert tempo.method == "tempo" and tempo.tempo == pytest.approx(1.25) and (tempo.start, tempo.end) == (2.0, 4.0)
    after = middle(2.0 * MAX_TEMPO + 0.5 * MAX_TEMPO)  # 0.5 s more than the slot at MAX_TEMPO: all from after
    assert after.method == "tempo+borrow" and after.borrowed_before_s == 0
    assert after.borrowed_after_s == pytest.approx(0.5) and after.start == 2.0
    both = middle((2.0 + 0.95 + 0.1) * MAX_TEMPO)  # all of after, then 0.1 s before
    assert both.method == "tempo+borrow"
    assert both.borrowed_after_s == pytest.approx(0.95) and both.borrowed_before_s == pytest.approx(0.1)
    assert both.start == pytest.approx(1.9)
    cut = middle(5.0 * MAX_TEMPO)
    assert cut.method == "truncated" and cut.tempo == MAX_TEMPO
    assert (cut.start, cut.end) == pytest.approx((2.0 - MAX_LEAD_S, 5.0 - MIN_GAP_S))
    assert cut.truncated_s == pytest.approx(5.0 - (3.0 - MIN_GAP_S + MAX_LEAD_S))


def test_touching_and_overlapping_cues_keep_the_gap() -> None:
    slots = [Slot(0.0, 2.0), Slot(2.0, 3.0), Slot(2.9, 4.0)]  # touching, then overlapping by 0.1 s
    fits = plan(slots, [2.0, 1.0, 1.0], 4.0)
    assert fits[0].end == pytest.approx(2.0 - MIN_GAP_S) and fits[0].method == "tempo"
    assert fits[1].end <= 2.9 - MIN_GAP_S + TOL
    check_guarantees(slots, [2.0, 1.0, 1.0], 4.0, fits)


def test_previous_borrowing_reduces_the_room_before() -> None:
    slots = [Slot(0.0, 1.0), Slot(1.3, 2.0)]
    first, second = plan(slots, [1.8, 2.0], 2.0)
    assert first.end == pytest.approx(1.3 - MIN_GAP_S)  # took all the silence after it
    assert second.start == pytest.approx(1.3) and second.borrowed_before_s == pytest.approx(0.0, abs=TOL)
    assert room(slots, 1, 2.0)[0] == pytest.approx(MAX_LEAD_S)  # with the first line inside its cue


def test_nothing_after_the_end_of_the_media() -> None:
    fit = plan([Slot(8.0, 10.5)], [4.0], 10.0)[0]
    assert fit.end <= 10.0 and fit.slot_s == pytest.approx(2.0)
    assert fit.method == "truncated"


def test_no_silence_is_borrowed_before_the_dubbed_range() -> None:
    fit = plan([Slot(10.05, 11.0)], [5.0], 12.0, media_start=10.0)[0]
    assert fit.start >= 10.0 and fit.borrowed_before_s == pytest.approx(0.05)
    assert room([Slot(10.05, 11.0)], 0, 12.0, media_start=10.0)[0] == pytest.approx(0.05)
    with pytest.raises(ValueError):
        plan([Slot(1.0, 2.0)], [1.0], 5.0, media_start=6.0)


def test_too_long_asks_for_a_fraction_that_fits_with_tempo_alone() -> None:
    slots = [Slot(1.0, 3.0)]
    assert too_long(2.5, slots, 0, 10.0) is None
    fraction = too_long(4.0, slots, 0, 10.0)
    assert fraction == pytest.approx(MAX_TEMPO * 2.0 / 4.0)
    assert too_long(4.0 * fraction, slots, 0, 10.0) is None
    assert too_long(0.0, slots, 0, 10.0) is None
    # within the ratio, but no room at all: too long as well
    assert too_long(2.9, [Slot(0.0, 2.0), Slot(2.0, 3.0)], 0, 10.0) is not None


@pytest.mark.parametrize(
    ("slots", "natural", "media_end"),
    [
        ([Slot(1.0, 0.5)], [1.0], 5.0),
        ([Slot(2.0, 3.0), Slot(1.0, 2.0)], [1.0, 1.0], 5.0),
        ([Slot(6.0, 7.0)], [1.0], 5.0),
        ([Slot(0.0, 1.0)], [-1.0], 5.0),
        ([Slot(0.0, 1.0)], [1.0, 1.0], 5.0),
        ([Slot(0.0, 1.0)], [math.nan], 5.0),
    ],
)
def test_invalid_input_is_refused(slots: list[Slot], natural: list[float], media_end: float) -> None:
    with pytest.raises(ValueError):
        plan(slots, natural, media_end)
