"""The batched runner's prompt-reuse policy: which slot a request takes, what it copies, when it waits."""

from __future__ import annotations

from concurrent.futures import Future

from engines.llm.completion import BatchStats, Generated, cut_at_stops
from engines.llm.slots import MIN_SHARED_PREFIX, QueuedRequest, Slot, common_prefix, place, should_wait


def request(tokens: list[int]) -> QueuedRequest:
    return QueuedRequest(tokens, max_tokens=8, chooser=None, stop=(), future=Future())  # type: ignore[arg-type]


def test_common_prefix() -> None:
    assert common_prefix([], [1, 2]) == 0
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2


def test_a_free_slot_holding_the_prefix_keeps_it() -> None:
    slots = [Slot(0, cached=[9, 9]), Slot(1, cached=[1, 2, 3, 7])]
    placement = place(request([1, 2, 3, 4]), slots, slots)
    assert (placement.slot.seq, placement.donor, placement.keep) == (1, None, 3)


def test_a_busy_slots_prefix_is_copied_and_the_last_prompt_token_is_read_again() -> None:
    busy = Slot(0, cached=[1, 2, 3, 4], request=request([1, 2, 3, 4, 5]))
    free = Slot(1)
    placement = place(request([1, 2, 3, 4]), [free], [busy, free])
    assert placement.slot is free and placement.donor is busy and placement.keep == 3
    placement.slot.begin(request([1, 2, 3, 4]), placement.keep)
    assert free.cached == [1, 2, 3] and free.reused == 3 and free.output == []


def test_a_request_waits_for_a_long_prefix_still_being_read() -> None:
    prompt = list(range(MIN_SHARED_PREFIX + 10))
    reader = Slot(0, cached=prompt[:2], request=request(prompt))
    assert should_wait(request([*prompt, 99]), [reader, Slot(1)])
    short = Slot(0, cached=[], request=request(prompt[: MIN_SHARED_PREFIX - 1]))
    assert not should_wait(request(prompt), [short, Slot(1)])


def test_results_are_cut_at_stops_and_counted() -> None:
    assert cut_at_stops("one\ntwo</s>three", ("</s>", "\n")) == "one"
    stats = BatchStats()
    stats.record(Generated("x", prompt_tokens=5, completion_tokens=2, cached_tokens=3, finish_reason="stop", seconds=0.1))
    assert (stats.requests, stats.prompt_tokens, stats.completion_tokens, stats.cached_tokens) == (1, 5, 2, 3)


def test_a_slot_is_looping_once_its_last_run_of_tokens_is_one_token() -> None:
    looping = QueuedRequest([1], max_tokens=64, chooser=None, stop=(), future=Future(), max_token_run=4)  # type: ignore[arg-type]
    slot = Slot(0, request=looping, output=[5, 7, 7, 7])
    assert not slot.looping()
    slot.output.append(7)
    assert slot.looping()
    slot.output.append(8)
    assert not slot.looping()
    looping.max_token_run = 6
    slot.request = looping
    slot.output = [9, 1, 2, 1, 2, 1, 2]  # a cycle of two tokens, three times
    assert slot.looping()
    slot.output = [9, 1, 2, 3, 1, 2, 3]  # a cycle of three, twice: not yet
    assert not slot.looping()
    slot.request = request([1])  # max_token_run 0: never
    slot.output = [7] * 50
    assert not slot.looping()
